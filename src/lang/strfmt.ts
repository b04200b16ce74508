// String formatting: the `%` operator (%s %r %d %i %o %x %X %c %e %E %f %F %g %G %%, and
// %(name)s with a dict) and str.format ({} {0} {name}, !s / !r conversions, {{ and }}).

import { formatExp, formatFixed, formatFloat } from "./numfmt.js";
import { Dict, StarError, Tuple, repr, str, typeName, type Value } from "./values.js";

function fmtError(msg: string, hint?: string): StarError {
  return new StarError("runtime-error", msg, { hint });
}

/** `format % operand`: Starlark's printf-style string formatting (`%s`, `%r`, `%d`, `%(name)s`, …). */
export function formatString(format: string, operand: Value): string {
  const args: readonly Value[] = operand instanceof Tuple ? operand.elems : [operand];
  let argIndex = 0;
  let usedMapping = false;
  let out = "";
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== "%") {
      out += c;
      continue;
    }
    i++;
    if (i >= format.length) throw fmtError("incomplete format: '%' at end of string", "write %% for a literal percent sign");
    let key: string | undefined;
    if (format[i] === "(") {
      const close = format.indexOf(")", i);
      if (close < 0) throw fmtError("incomplete format key: missing ')'");
      key = format.slice(i + 1, close);
      i = close + 1;
      if (i >= format.length) throw fmtError("incomplete format after %(" + key + ")");
    }
    const conv = format[i];
    if (conv === "%" && key === undefined) {
      out += "%";
      continue;
    }
    let arg: Value;
    if (key !== undefined) {
      if (!(operand instanceof Dict)) throw fmtError(`format requires a mapping for %(${key})${conv}, got ${typeName(operand)}`);
      const v = operand.get(key);
      if (v === undefined) throw new StarError("key-error", `key ${JSON.stringify(key)} not in dict`);
      arg = v;
      usedMapping = true;
    } else {
      if (argIndex >= args.length) throw fmtError("not enough arguments for format string");
      arg = args[argIndex++];
    }
    out += convert(conv, arg);
  }
  if (!usedMapping && argIndex < args.length)
    throw fmtError(
      `too many arguments for format string (${args.length} given, ${argIndex} used)`,
      "pass a tuple with one value per % conversion",
    );
  return out;
}

function convert(conv: string, arg: Value): string {
  switch (conv) {
    case "s":
      return str(arg);
    case "r":
      return repr(arg);
    case "d":
    case "i":
      if (typeof arg === "bigint") return arg.toString();
      if (typeof arg === "number") {
        if (!Number.isFinite(arg)) throw fmtError(`cannot convert ${formatFloat(arg)} to int`);
        return BigInt(Math.trunc(arg)).toString();
      }
      throw fmtError(`%${conv} format requires an int or float, not ${typeName(arg)}`);
    case "o":
    case "x":
    case "X": {
      let n: bigint;
      if (typeof arg === "bigint") n = arg;
      else if (typeof arg === "number" && Number.isFinite(arg)) n = BigInt(Math.trunc(arg));
      else throw fmtError(`%${conv} format requires an int or float, not ${typeName(arg)}`);
      const neg = n < 0n;
      const s = (neg ? -n : n).toString(conv === "o" ? 8 : 16);
      return (neg ? "-" : "") + (conv === "X" ? s.toUpperCase() : s);
    }
    case "c":
      if (typeof arg === "bigint") {
        if (arg < 0n || arg > 0x10ffffn) throw fmtError(`%c: code point ${arg} out of range`);
        return String.fromCodePoint(Number(arg));
      }
      if (typeof arg === "string" && [...arg].length === 1) return arg;
      throw fmtError(`%c requires an int or a one-character string, not ${typeName(arg)}`);
    case "e":
    case "E":
    case "f":
    case "F":
    case "g":
    case "G": {
      if (typeof arg !== "bigint" && typeof arg !== "number")
        throw fmtError(`%${conv} format requires a float or int, not ${typeName(arg)}`);
      const f = Number(arg);
      if (conv === "e" || conv === "E") return formatExp(f, 6, conv === "E");
      if (conv === "f" || conv === "F") return formatFixed(f, 6, conv === "F");
      const g = formatFloat(f);
      return conv === "G" ? g.toUpperCase() : g;
    }
    default:
      throw fmtError(`unsupported format character '${conv}'`, "supported: %s %r %d %i %o %x %X %c %e %E %f %F %g %G %%");
  }
}

/** str.format: {} / {0} / {name}, optional !s or !r; {{ and }} are literal braces. */
export function strFormat(format: string, args: readonly Value[], kwargs: ReadonlyArray<[string, Value]>): string {
  let out = "";
  let auto = 0;
  let mode: "auto" | "manual" | undefined;
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c === "}") {
      if (format[i + 1] === "}") {
        out += "}";
        i++;
        continue;
      }
      throw fmtError("single '}' in format string", "write }} for a literal brace");
    }
    if (c !== "{") {
      out += c;
      continue;
    }
    if (format[i + 1] === "{") {
      out += "{";
      i++;
      continue;
    }
    const close = format.indexOf("}", i);
    if (close < 0) throw fmtError("unmatched '{' in format string", "write {{ for a literal brace");
    let field = format.slice(i + 1, close);
    i = close;
    let conv = "s";
    const bang = field.indexOf("!");
    if (bang >= 0) {
      conv = field.slice(bang + 1);
      field = field.slice(0, bang);
      if (conv !== "s" && conv !== "r") throw fmtError(`unknown conversion !${conv} in format string`, "use !s or !r");
    }
    if (field.includes(":"))
      throw fmtError(
        `format spec ${JSON.stringify(field.slice(field.indexOf(":")))} is not supported in Starlark`,
        "format the value first, e.g. with '%.2f' % x",
      );
    if (field.includes("{")) throw fmtError("nested replacement fields are not supported");
    let arg: Value;
    if (field === "") {
      if (mode === "manual") throw fmtError("cannot switch from manual field numbering to automatic");
      mode = "auto";
      if (auto >= args.length)
        throw new StarError("index-error", `format: not enough positional arguments for {} #${auto + 1} (${args.length} given)`);
      arg = args[auto++];
    } else if (/^\d+$/.test(field)) {
      if (mode === "auto") throw fmtError("cannot switch from automatic field numbering to manual");
      mode = "manual";
      const n = Number(field);
      if (n >= args.length) throw new StarError("index-error", `format: index ${n} out of range (${args.length} positional arguments)`);
      arg = args[n];
    } else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
      const kv = kwargs.find(([k]) => k === field);
      if (!kv)
        throw new StarError("key-error", `format: keyword ${field} not given`, {
          hint: kwargs.length ? `given: ${kwargs.map(([k]) => k).join(", ")}` : undefined,
        });
      arg = kv[1];
    } else {
      throw fmtError(`format field {${field}} is not supported: use {}, {0} or {name}`);
    }
    out += conv === "r" ? repr(arg) : str(arg);
  }
  return out;
}
