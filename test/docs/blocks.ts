// Fenced code blocks of the Markdown docs: which ones are playbooks, and what they must produce.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
}

/** Every fenced block (``` or ~~~) of a Markdown text, with its info string's first word. */
export function fencedBlocks(file: string, markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([A-Za-z0-9_+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence!); j++)
      body.push(lines[j]!.slice(Math.min(open[1]!.length, lines[j]!.length - lines[j]!.trimStart().length)));
    out.push({ file, line: i + 1, lang: open[3]!.toLowerCase(), text: body.join("\n") + "\n" });
    i = j;
  }
  return out;
}

/** A block that declares a task is a playbook and must compile (or fail with its `# expect:` code). */
export const TASK_CALL = /(^|[^A-Za-z0-9_.])(command|agent|route|evaluate|revise)\(/m;

export function isPlaybookBlock(b: CodeBlock): boolean {
  return (b.lang === "python" || b.lang === "starlark") && TASK_CALL.test(b.text);
}

/** `# expect: CODE` on the first line marks a deliberately broken example. */
export function expectedCode(b: CodeBlock): string | undefined {
  return /^#\s*expect:\s*([a-z]+(?:-[a-z]+)*)\s*$/.exec(b.text.split("\n")[0]!)?.[1];
}

/** docs/*.md and README.md, relative to the repository root. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

export function allBlocks(root: string): CodeBlock[] {
  return docFiles(root).flatMap((f) => fencedBlocks(f, readFileSync(join(root, f), "utf8")));
}
