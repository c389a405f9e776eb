/** A finding is data: one rule's verdict about one subject. Words come from a catalogue. */
export type Severity = "error" | "warning" | "info";

export type Finding = {
  /** Stable UPPER_SNAKE code, e.g. `PORT_DOWN`, `GID_INDEX_DIFFERS`. Never renamed. */
  code: string;
  severity: Severity;
  /** What it is about: an HCA (`mlx5_5`), a port (`mlx5_5/1`), a GPU (`GPU3`), a node, a manifest path. */
  subject: string;
  message: string;
  fix: string;
  /** Machine-readable facts behind the message. */
  evidence?: Record<string, unknown>;
  /**
   * How sure the finding is, when the input was partial (a cut paste, a run that died, facts derived rather than
   * printed). Absent: read directly from a whole capture.
   */
  confidence?: Confidence;
};

export type Confidence = { level: "medium" | "low"; why: string[] };

/** Marks findings drawn from a partial input: one reason is medium confidence, two or more low. */
export function withConfidence(findings: readonly Finding[], why: readonly string[]): Finding[] {
  if (why.length === 0) return [...findings];
  const confidence: Confidence = { level: why.length > 1 ? "low" : "medium", why: [...why] };
  return findings.map((f) => ({ ...f, confidence }));
}

/** One catalogue entry: how a code becomes words. `E` is the evidence the rule supplies. */
export type FindingSpec<E> = {
  severity: Severity;
  title: string;
  message: (e: E, subject: string) => string;
  fix: (e: E, subject: string) => string;
};

export type Catalogue = Record<string, FindingSpec<never>>;

/** Declares a catalogue while keeping each entry's evidence type. */
export function defineCatalogue<C extends { [K in keyof C]: FindingSpec<never> }>(c: C): C {
  return c;
}

type EvidenceOf<S> = S extends FindingSpec<infer E> ? E : never;

/** Builds a finding from a catalogue entry; severity may be overridden by the rule (e.g. warn vs error). */
export function makeFinding<C extends Catalogue, K extends keyof C & string>(
  catalogue: C,
  code: K,
  subject: string,
  evidence: EvidenceOf<C[K]>,
  severity?: Severity,
): Finding {
  const spec = catalogue[code] as unknown as FindingSpec<EvidenceOf<C[K]>>;
  return {
    code,
    severity: severity ?? spec.severity,
    subject,
    message: spec.message(evidence, subject),
    fix: spec.fix(evidence, subject),
    evidence: evidence as Record<string, unknown>,
  };
}

export type Summary = { status: "pass" | "warn" | "fail"; errors: number; warnings: number; infos: number };

export function summarize(findings: readonly Finding[], strict = false): Summary {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const f of findings) {
    if (f.severity === "error") errors++;
    else if (f.severity === "warning") warnings++;
    else infos++;
  }
  const failing = errors > 0 || (strict && warnings > 0);
  return { status: failing ? "fail" : warnings > 0 ? "warn" : "pass", errors, warnings, infos };
}

/**
 * Inputs that could not be read, recognised or judged were not checked: a summary over them is never a pass,
 * whatever the findings of the others say (`analyze`, `lint`, `bench judge`; text, JSON and HTML alike).
 */
export function failIfUnchecked(s: Summary, unchecked: number): Summary {
  return unchecked > 0 ? { ...s, status: "fail" } : s;
}

/** Exit-code contract: 0 no errors (warnings allowed), 1 errors found (or warnings with --strict). 2 is for "could not run". */
export function exitCodeFor(findings: readonly Finding[], strict = false): 0 | 1 {
  return summarize(findings, strict).status === "fail" ? 1 : 0;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function bySeverity(a: Finding, b: Finding): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity];
}
