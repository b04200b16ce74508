// The catalog of error codes the language layer emits (for `switchyard explain CODE` and the docs).

import type { CodeEntry } from "./diagnostic.js";
export type { CodeEntry };

/** Every diagnostic code the language layer emits, with its rule id and explanation (`switchyard explain CODE`). */
export const LANG_CODES: CodeEntry[] = [
  {
    code: "lex-error",
    rule: "L-10",
    summary: "the file contains text that is not a valid Starlark token",
    explain:
      'The scanner could not read part of the file: an unterminated string, an invalid escape sequence such as \\d in a normal string (write \\\\d or use a raw string r"..."), a number with leading zeros (write 0o17 for octal), an unexpected character, inconsistent indentation, or a reserved Python word such as `while`, `class`, `import` or `try` that Starlark does not allow. Fix the text at the caret.',
  },
  {
    code: "syntax-error",
    rule: "L-11",
    summary: "the file does not follow Starlark's grammar",
    explain:
      "The parser found a statement or expression that is not valid Starlark: a missing ':' or ')', an assignment to something that is not a name, index or attribute, chained comparisons, implicit concatenation of adjacent string literals (join them with +), a generator expression, `**`, `break` outside a loop, `return` outside a function, or `load` below the top level. Every independent syntax error in a file is reported; fix them from the top.",
  },
  {
    code: "undefined-name",
    rule: "L-15",
    summary: "a name is used that is not defined anywhere in scope",
    explain:
      "Starlark resolves every name before running the file, so a misspelled variable, function or built-in is an error even on a line that would never run. Define the name (assign it, `def` it, or `load` it from a module), or correct the spelling; the message suggests the nearest defined name when there is one.",
  },
  {
    code: "reassign-builtin",
    rule: "L-13",
    summary: "a top-level assignment rebinds a built-in name",
    explain:
      "Assigning to a built-in name such as `len`, `str`, or one of the playbook built-ins at the top level of a file would hide it from every function in the file. Choose another name. Inside a function, a local variable may use any name.",
  },
  {
    code: "unbound-variable",
    rule: "L-11",
    summary: "a variable is read before it has been assigned",
    explain:
      "A global variable was read before the statement that assigns it ran, or a local variable was read before its assignment in the function. In Starlark a name assigned anywhere in a function body is local to the whole body, so reading it earlier in the function does not fall back to a global of the same name. Move the assignment above the use, or rename the local.",
  },
  {
    code: "runtime-error",
    rule: "L-15",
    summary: "evaluation failed",
    explain:
      "A general runtime error: division by zero, a value not found, unpacking the wrong number of values, an invalid format string, or a list or dict modified while a loop iterates over it. The message says what failed and the call stack says where; fix the code or the data at the caret.",
  },
  {
    code: "type-error",
    rule: "L-12",
    summary: "an operation was applied to a value of the wrong type",
    explain:
      'Starlark does not convert types implicitly: `"a" + 1` is an error (write `"a" + str(1)`), values of unlike types cannot be ordered with < (except int with float), strings are not iterable (use s.elems()), and lists and dicts cannot be dict keys. The message names the types involved.',
  },
  {
    code: "index-error",
    rule: "L-12",
    summary: "an index is out of range",
    explain:
      "A list, tuple, string or range was indexed (or popped) at a position it does not have. Valid indices of a sequence of length n are -n … n-1. Check the length first, or use a slice, which never fails.",
  },
  {
    code: "key-error",
    rule: "L-12",
    summary: "a dict has no such key",
    explain:
      "`d[k]` or `d.pop(k)` was used with a key the dict does not contain. Use `d.get(k, default)` for optional keys or test `k in d` first.",
  },
  {
    code: "attribute-error",
    rule: "L-12",
    summary: "a value has no field or method of that name",
    explain:
      "`x.name` named a field or method that the value does not have: a misspelled struct field, task field, or string/list/dict method. The message suggests the nearest name; `dir(x)` lists them all.",
  },
  {
    code: "frozen-value",
    rule: "L-14",
    summary: "a frozen value was modified",
    explain:
      "When a module finishes, every value it created is frozen: lists and dicts from a loaded module (or a finished playbook) can no longer be changed. Copy the value first — `list(x)`, `dict(x)` — and change the copy.",
  },
  {
    code: "recursion",
    rule: "L-11",
    summary: "a function called itself (directly or indirectly)",
    explain:
      "Starlark forbids recursion so that evaluation always terminates. Rewrite the function with a `for` loop over a bounded `range`, or an explicit work list.",
  },
  {
    code: "step-budget",
    rule: "L-14",
    summary: "evaluation exceeded the step budget",
    explain:
      "Evaluation is limited to a budget of operations (10 million by default) so that a runaway loop or comprehension stops with an error instead of hanging. Look for a loop that runs far more often than intended, e.g. nested loops over large ranges.",
  },
  {
    code: "alloc-budget",
    rule: "L-14",
    summary: "evaluation created more values than its allocation budget allows",
    explain:
      "Evaluation may create a bounded number of collection elements in all (5 million list, tuple, dict and set entries by default; 16 string characters count as one), so that a runaway comprehension such as `[i for i in range(10**8)]` stops with an error before it exhausts memory. Look for a comprehension or loop that builds far larger collections than intended, or a list rebuilt from scratch on every iteration (`l = l + [x]`; use `l.append(x)`).",
  },
  {
    code: "fail",
    rule: "L-13",
    summary: "the code called fail()",
    explain:
      "The Starlark code stopped itself by calling `fail(message)`; the message is the author's. Read it, and fix the input or the code that led there.",
  },
  {
    code: "load-error",
    rule: "L-3",
    summary: "a load statement could not be satisfied",
    explain:
      'A `load("path", "name")` failed: the module file does not exist or leaves the allowed folder, the loads form a cycle, the module failed, the module does not define the requested name, or the name is private (starts with _). The message says which.',
  },
  {
    code: "unknown-argument",
    rule: "L-13",
    summary: "a call passed a keyword argument the function does not accept",
    explain: "The function has no parameter of that name. The message lists the parameters it accepts and suggests the nearest one.",
  },
  {
    code: "missing-argument",
    rule: "L-13",
    summary: "a call omitted a required argument",
    explain: "The function requires an argument that the call did not pass, positionally or by name. Add it.",
  },
  {
    code: "duplicate-argument",
    rule: "L-13",
    summary: "a call passed the same argument twice",
    explain: "An argument was given both positionally and by name, or twice by name (possibly through **kwargs). Pass it once.",
  },
  {
    code: "too-many-arguments",
    rule: "L-13",
    summary: "a call passed more positional arguments than the function accepts",
    explain: "Remove the extra positional arguments, or pass them by name if the function accepts them as keywords.",
  },
  {
    code: "internal-error",
    summary: "the interpreter itself failed",
    explain: "This is a bug in switchyard, not in your file. Please report it with the file that triggers it.",
  },
];

/** The language layer's codes, for checking that each emitted code is catalogued. */
export const LANG_CODE_SET: ReadonlySet<string> = new Set(LANG_CODES.map((c) => c.code));
