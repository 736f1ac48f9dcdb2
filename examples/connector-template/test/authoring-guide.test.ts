import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isConnector } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import connector from "../src/index.js";

/**
 * docs/connectors/authoring.md walks a newcomer through this template. Its code blocks marked
 * `file=<path>` are the template's files (whole, or with `excerpt` a verbatim part), its install
 * commands name the template's dependencies, and its `sqlload.toml` names the connector: when the
 * guide or the template changes without the other, a test here fails.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const guidePath = resolve(root, "../../docs/connectors/authoring.md");
const guide = readFileSync(guidePath, "utf8");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  sqlload?: { connector?: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface Block {
  readonly lang: string;
  readonly file?: string;
  readonly excerpt: boolean;
  readonly body: string;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  for (const m of markdown.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = m[2] ?? "";
    out.push({
      lang: m[1] ?? "",
      file: /(?:^|\s)file=(\S+)/.exec(info)?.[1],
      excerpt: /(?:^|\s)excerpt(?:\s|$)/.test(info),
      body: (m[3] ?? "").replace(/\n$/, ""),
    });
  }
  return out;
}

const all = blocks(guide);
const fileBlocks = all.filter((b) => b.file);

describe("docs/connectors/authoring.md", () => {
  it.each(fileBlocks.map((b) => [`${b.file}${b.excerpt ? " (excerpt)" : ""}`, b] as const))("shows %s as it is", (_, block) => {
    const actual = readFileSync(join(root, block.file!), "utf8");
    if (block.excerpt) expect(actual).toContain(block.body);
    else expect(block.body).toBe(actual.replace(/\n$/, ""));
  });

  it("shows every step in full: tsconfig, the entry with defineConnector, the conformance test", () => {
    const whole = fileBlocks.filter((b) => !b.excerpt).map((b) => b.file);
    expect(whole).toEqual(expect.arrayContaining(["tsconfig.json", "src/index.ts", "test/conformance.integration.test.ts"]));
    expect(fileBlocks.find((b) => b.file === "src/index.ts")?.body).toContain("defineConnector(");
    expect(fileBlocks.find((b) => b.file === "test/conformance.integration.test.ts")?.body).toContain(
      "describeTargetConformance(",
    );
  });

  it("installs exactly the template's dependencies", () => {
    const install = all.find((b) => b.lang === "sh" && b.body.includes("npm init"))?.body ?? "";
    const names = (flag: RegExp) =>
      install
        .split("\n")
        .filter((line) => flag.test(line))
        .flatMap((line) =>
          line
            .replace(/^npm i( -D)?/, "")
            .trim()
            .split(/\s+/),
        )
        .sort();
    expect(names(/^npm i (?!-D)/)).toEqual(Object.keys(pkg.dependencies).sort());
    expect(names(/^npm i -D /)).toEqual(Object.keys(pkg.devDependencies).sort());
  });

  it("names the connector as the package and its manifest do", () => {
    expect(isConnector(connector)).toBe(true);
    expect(pkg.sqlload?.connector).toBe(connector.manifest.name);
    const toml = all.find((b) => b.lang === "toml")?.body ?? "";
    expect(toml).toContain(`connector = "${connector.manifest.name}"`);
    expect(guide).toContain(`npm i -D ${pkg.name}`);
  });
});

describe("the template", () => {
  const sources = ["src", "test"].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(root, dir, f)),
  );

  /** Every name `@sqlload/core` publishes: what its built entry's declarations export. */
  function published(name: string): Set<string> {
    const entry = createRequire(join(root, "package.json")).resolve(name);
    const declarations = readFileSync(entry.replace(/\.js$/, ".d.ts"), "utf8");
    const names = new Set<string>();
    for (const m of declarations.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
      for (const part of (m[1] ?? "").split(",")) {
        const exported = part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)
          .pop();
        if (exported) names.add(exported);
      }
    }
    return names;
  }

  it("imports only the published entries of @sqlload packages, and nothing outside itself", () => {
    const api = { "@sqlload/core": published("@sqlload/core"), "@sqlload/conformance": published("@sqlload/conformance") };
    for (const file of sources) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g)) {
        const from = m[3] ?? "";
        if (from.startsWith(".")) {
          expect(relative(root, resolve(dirname(file), from)).startsWith(".."), `${file} imports ${from}`).toBe(false);
          continue;
        }
        if (!from.startsWith("@sqlload/")) continue;
        expect(Object.keys(api), `${file} imports ${from}`).toContain(from);
        for (const part of (m[2] ?? "").split(",")) {
          const imported = part
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0];
          if (imported) expect(api[from as keyof typeof api], `${file}: ${imported} from ${from}`).toContain(imported);
        }
      }
    }
  });
});
