// Float formatting as Starlark does it: str(1.0) == "1.0", str(1e6) == "1e+06", and the
// %e / %f / %g conversions of string `%` formatting.

/** Shortest round-tripping digits and decimal exponent of a finite, non-negative float. */
function shortestDigits(x: number): { digits: string; exp: number } {
  const s = x.toExponential(); // shortest digits that round-trip, e.g. "1.2345e+2"
  const [mant = "", e = ""] = s.split("e");
  return { digits: mant.replace(".", ""), exp: Number(e) };
}

function specials(x: number): string | undefined {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "+inf";
  if (x === -Infinity) return "-inf";
  return undefined;
}

/** str(float) / %g: shortest digits; exponent form when exp < -4 or exp >= 6; always shows it is a float. */
export function formatFloat(x: number): string {
  const sp = specials(x);
  if (sp) return sp;
  const neg = x < 0 || Object.is(x, -0);
  const { digits, exp } = shortestDigits(Math.abs(x));
  let out: string;
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    out = mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  } else if (exp < 0) {
    out = "0." + "0".repeat(-exp - 1) + digits;
  } else if (digits.length <= exp + 1) {
    out = digits + "0".repeat(exp + 1 - digits.length) + ".0";
  } else {
    out = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }
  return (neg ? "-" : "") + out;
}

/** %e with a precision (default 6): d.dddddde±XX. */
export function formatExp(x: number, prec = 6, upper = false): string {
  const sp = specials(x);
  if (sp) return upper ? sp.toUpperCase() : sp;
  // toExponential and toFixed drop the sign of -0.0; Starlark keeps it ("-0.000000").
  const s = (Object.is(x, -0) ? "-" : "") + x.toExponential(Math.min(prec, 100));
  const [mant = "", e = ""] = s.split("e");
  const sign = e[0] === "-" ? "-" : "+";
  const out = mant + "e" + sign + e.slice(1).padStart(2, "0");
  return upper ? out.toUpperCase() : out;
}

/** %f with a precision (default 6). */
export function formatFixed(x: number, prec = 6, upper = false): string {
  const sp = specials(x);
  if (sp) return upper ? sp.toUpperCase() : sp;
  if (Math.abs(x) < 1e21) return (Object.is(x, -0) ? "-" : "") + x.toFixed(Math.min(prec, 100));
  // toFixed switches to exponent form here; integral anyway at this magnitude.
  const whole = BigInt(x).toString();
  return prec > 0 ? whole + "." + "0".repeat(prec) : whole;
}
