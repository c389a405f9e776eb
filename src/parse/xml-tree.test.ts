import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { at, readXml } from "./xml-tree.js";

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
    ["<a><b>text", /ends inside <b>/],
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
