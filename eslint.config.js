// Lint rules that hold the architecture (docs/architecture.md): each layer imports only the layers
// below it, and no module imports itself back through a cycle. The layers, lowest first:
//   src/lang → src/plan → src/run → src/decide → src/lab → src/ui → src/api → src/cli
// src/shared holds primitives every layer may import, so it may import no layer itself.
// src/run is built of rooms (src/run/<room>/), each with an index.ts that is its only door: code
// outside a room imports only that index, never a file inside the room; and the rooms import each
// other in one direction only, highest first:
//   cassette → queue → engine → kinds → agents → process → store → values
// Style is left to the formatter; these rules are about structure only.
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

const layers = ["lang", "plan", "run", "decide", "lab", "ui", "api", "cli"];

/** For each layer, the zones it must not import from: every layer above it. */
const zones = [
  ...layers.flatMap((layer, i) =>
    layers.slice(i + 1).map((upper) => ({
      target: `./src/${layer}`,
      from: `./src/${upper}`,
      message: `src/${layer} is below src/${upper}: lower layers never import upper ones.`,
    })),
  ),
  ...layers.map((layer) => ({
    target: "./src/shared",
    from: `./src/${layer}`,
    message: "src/shared is imported by every layer, so it imports none of them.",
  })),
];

/** The rooms of src/run, highest first: a room imports only the rooms after it. */
const rooms = ["cassette", "queue", "engine", "kinds", "agents", "process", "store", "values"];

/** Every folder of src outside a room, and each room: whoever may knock on a room's door. */
const outside = (room) => [
  ...layers.filter((l) => l !== "run").map((l) => `./src/${l}`),
  "./src/shared",
  "./src/run/index.ts",
  ...rooms.filter((r) => r !== room).map((r) => `./src/run/${r}`),
];

const roomZones = [
  ...rooms.map((room) => ({
    target: outside(room),
    from: `./src/run/${room}`,
    except: ["./index.ts"],
    message: `src/run/${room}/index.ts is the room's only door: import from it, not from a file inside the room.`,
  })),
  ...rooms.flatMap((room, i) =>
    rooms.slice(0, i).map((upper) => ({
      target: `./src/run/${room}`,
      from: `./src/run/${upper}`,
      message: `src/run/${room} is below src/run/${upper} (cassette → queue → engine → kinds → agents → process → store → values): a room imports only the rooms below it.`,
    })),
  ),
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".tmp/**", ".bench-scratch/**", "**/.switchyard/**"] },
  // Source files carry `eslint-disable` comments for rules this config does not turn on (yet).
  { linterOptions: { reportUnusedDisableDirectives: "off" } },
  {
    files: ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts"],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: "module" } },
    plugins: { "import-x": importX, "@typescript-eslint": tseslint.plugin },
    settings: {
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/extensions": [".ts", ".js"],
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: [...zones, ...roomZones] }],
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    // Functions a reader can hold (docs/architecture.md, contributor notes): at most 80 lines of
    // code, blank lines and comments not counted. A table or a parser's dispatch that is clearer
    // whole may go over, with a disable comment on the function saying why.
    files: ["src/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  // One error root (src/shared/coded-error.ts): every error src/ throws on purpose carries a code
  // and a message for people, so no bare Error, TypeError or RangeError is thrown or handed on,
  // and no error class starts a second root beside CodedError.
  {
    files: ["src/**/*.ts"],
    ignores: ["src/shared/coded-error.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name=/^(Error|TypeError|RangeError|SyntaxError)$/]",
          message: "Throw a CodedError (src/shared/coded-error.ts) or one of its subclasses: a code, and a message for people.",
        },
        {
          selector: "ClassDeclaration[superClass.name=/^(Error|TypeError|RangeError|SyntaxError)$/]",
          message: "Extend CodedError (src/shared/coded-error.ts): it is the one error root.",
        },
      ],
    },
  },
);
