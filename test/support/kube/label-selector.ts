/**
 * metav1.LabelSelector matching (matchLabels AND matchExpressions In/NotIn/Exists/DoesNotExist), as
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#resources-that-support-set-based-requirements
 * describes; an empty selector selects everything. Also node selector terms (the same operators plus Gt/Lt).
 */

export type Requirement = { key: string; operator: string; values?: string[] };
export type LabelSelector = { matchLabels?: Record<string, string>; matchExpressions?: Requirement[] };

export function requirementHolds(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const v = labels[req.key];
  switch (req.operator) {
    case "In":
      return has && (req.values ?? []).includes(v!);
    case "NotIn":
      return !has || !(req.values ?? []).includes(v!);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    case "Gt":
      return has && Number(v) > Number(req.values?.[0]);
    case "Lt":
      return has && Number(v) < Number(req.values?.[0]);
    default:
      throw new Error(`unknown selector operator ${req.operator}`);
  }
}

export function selects(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  return (sel.matchExpressions ?? []).every((r) => requirementHolds(r, labels));
}
