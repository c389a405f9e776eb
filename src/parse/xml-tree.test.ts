import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { at, readXml, type XmlElement } from "./xml-tree.js";

describe("the small XML reader used for nvidia-smi -q -x", () => {
  test("elements, attributes, entities, CDATA, comments, declaration and DOCTYPE", () => {
    const r = readXml(
      '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v11.dtd">\n' +
        '<log><!-- c --><gpu id="00000000:53:00.0"><name>A &amp; B</name><x/><d><![CDATA[<raw>]]></d></gpu></log>',
    );
    if (!r.ok) throw new Error(r.message);
    expect(at(r.root, "gpu")?.attrs.id).toBe("00000000:53:00.0");
    expect(at(r.root, "gpu", "name")?.text).toBe("A & B");
    expect(at(r.root, "gpu", "d")?.text).toBe("<raw>");
    expect(at(r.root, "gpu", "x")?.children).toEqual([]);
  });

  test("an element's text is its text pieces joined and trimmed, blanks between pieces kept", () => {
    const r = readXml("<a>\n  x<b/>  <c>in</c>\t y <![CDATA[ z ]]>\n</a  >");
    if (!r.ok) throw new Error(r.message);
    expect(r.root.text).toBe("x  \t y  z");
    expect(at(r.root, "c")?.text).toBe("in");
    const blank = readXml("<a> <b>\n</b >\n </a>");
    expect(blank.ok && blank.root.text).toBe("");
  });

  test.each([
    ["<a><b></a>", /expected <\/b>, found <\/a>/],
    ["<a><b", /never closed/],
    ["</a>", /without an opening tag/],
    ["<a></a><b></b>", /second root/],
    ["oops <a></a>", /text outside the root/],
    ['<a x="1" y></a>', /unexpected "y"/],
    ["", /no root element/],
  ])("%s is malformed: %s", (xml, message) => {
    const r = readXml(xml);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  type Node = { name: string; attrs: [string, string][]; kids: (Node | string)[] | null };
  const name = fc.constantFrom("a", "gpu", "pci_bus_id", "x.y", "n-1", "ns:t", "_u", "B9");
  const value = fc.constantFrom("1", "0000:53:00.0", "a>b", "");
  const word = fc.constantFrom("v", "1 MiB", "A", "N/A", "x\ty");
  const space = fc.constantFrom("", " ", "\n\t");
  const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
    node: fc.record({
      name,
      attrs: fc.uniqueArray(fc.tuple(fc.constantFrom("id", "k", "a-b"), value), {
        maxLength: 2,
        selector: (a) => a[0],
      }),
      kids: fc.option(fc.array(fc.oneof(word, tie("node")), { maxLength: 4 }), { depthSize: "small" }),
    }),
  })).node;
  const write = (n: Node, ws: string): string => {
    const attrs = n.attrs.map(([k, v]) => ` ${k}="${v}"`).join("");
    if (n.kids === null) return `<${n.name}${attrs}${ws}/>`;
    const kids = n.kids.map((k) => (typeof k === "string" ? k : write(k, ws)));
    return `<${n.name}${attrs}${ws}>${ws}${kids.join(ws)}${ws}</${n.name}${ws}>`;
  };

  test("any well-formed document reads back as the tree it was written from", () => {
    const expected = (n: Node): XmlElement => ({
      name: n.name,
      attrs: Object.fromEntries(n.attrs),
      children: (n.kids ?? []).filter((k): k is Node => typeof k !== "string").map(expected),
      text: "",
    });
    const withoutText = (e: XmlElement): XmlElement => ({ ...e, text: "", children: e.children.map(withoutText) });
    // An element's text: its content with the child elements left out, trimmed (blanks between pieces kept).
    const textOf = (n: Node, ws: string) =>
      `${ws}${(n.kids ?? []).map((k) => (typeof k === "string" ? k : "")).join(ws)}${ws}`.trim();
    fc.assert(
      fc.property(node, space, (n, ws) => {
        const r = readXml(`<?xml version="1.0" ?>${ws}${write(n, ws)}${ws}`);
        if (!r.ok) throw new Error(r.message);
        expect(withoutText(r.root)).toEqual(expected(n));
        expect(r.root.text).toBe(textOf(n, ws));
      }),
      { numRuns: 2000 },
    );
  });

  test("keepAtDepth reads the same tree as a full read with the other elements at that depth left out", () => {
    const keptNames = fc.subarray(["a", "gpu", "pci_bus_id", "x.y", "n-1", "ns:t", "_u", "B9"]);
    const prune = (e: XmlElement, depth: number, names: ReadonlySet<string>, at = 0): XmlElement => ({
      ...e,
      children: e.children
        .filter((c) => at + 1 !== depth || names.has(c.name))
        .map((c) => prune(c, depth, names, at + 1)),
    });
    fc.assert(
      fc.property(node, space, fc.integer({ min: 1, max: 3 }), keptNames, (n, ws, depth, kept) => {
        const doc = `<?xml version="1.0" ?>${ws}${write(n, ws)}${ws}`;
        const names = new Set(kept);
        const full = readXml(doc);
        const part = readXml(doc, { keepAtDepth: { depth, names } });
        if (!full.ok || !part.ok) throw new Error(full.ok ? (part.ok ? "" : part.message) : full.message);
        expect(part.root).toEqual(prune(full.root, depth, names));
      }),
      { numRuns: 2000 },
    );
  });

  test("keepAtDepth: a document that ends inside a section passed over is cut there, with its line", () => {
    const doc = "<log>\n<gpu>\n<clocks><clocks>1</clocks>\n";
    const r = readXml(doc, { keepAtDepth: { depth: 2, names: new Set(["pci"]) } });
    expect(r).toMatchObject({ ok: true, cut: { message: "the document ends inside <clocks> (truncated?)", line: 4 } });
  });

  test("a document cut short keeps what it read, its open elements closed, and says where it ends", () => {
    const r = readXml("<a>\n<v>1</v>\n<b>text");
    expect(r).toMatchObject({ ok: true, cut: { message: "the document ends inside <b> (truncated?)", line: 3 } });
    if (r.ok)
      expect(r.root.children.map((c) => [c.name, c.text])).toEqual([
        ["v", "1"],
        ["b", "text"],
      ]);
  });

  test("any input gives a tree or an error with a line, never a throw", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("<", ">", "/", "a", "b", "=", '"', "'", "!", "?", "-", "[", "]", " ", "\n", "&", ";"),
        }),
        (s) => {
          const r = readXml(s);
          if (!r.ok) expect(r.line).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 500 },
    );
  });
});
