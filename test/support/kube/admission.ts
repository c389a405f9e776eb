/**
 * ValidatingAdmissionPolicy admission as the API server performs it, for the objects a test cluster holds: which
 * bindings select a request (the policy's matchConstraints, the binding's matchResources: resourceRules,
 * namespaceSelector, objectSelector), the policy's matchConditions, its paramKind / the binding's paramRef
 * (parameterNotFoundAction), variables, and each validation evaluated with a CEL interpreter (@bufbuild/cel) on
 * `object`, `oldObject`, `request`, `params`, `namespaceObject` and `variables`. A rule that does not evaluate
 * denies under failurePolicy Fail, as on a real server.
 * Semantics from https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/ (matching
 * requests, parameter resources, match conditions, failure policy) and the admissionregistration.k8s.io/v1 API.
 */
import { isCelError, run } from "@bufbuild/cel";
import { type LabelSelector, selects } from "./label-selector.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
type Obj = Record<string, any>;

export type UserInfo = { username: string; groups?: string[]; extra?: Record<string, string[]> };

export type AdmissionRequest = {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  /** Plural resource, e.g. `pods`. */
  resource: string;
  subResource: string;
  namespace: string | null;
  name: string;
  object: Obj | null;
  oldObject: Obj | null;
  userInfo: UserInfo;
};

/** What admission reads from the cluster: the policies, bindings, namespaces and parameter objects. */
export type AdmissionView = {
  list(plural: string): Obj[];
};

type Rule = { apiGroups?: string[]; apiVersions?: string[]; operations?: string[]; resources?: string[] };

const any = (list: string[] | undefined, value: string) => !list || list.includes("*") || list.includes(value);

function ruleMatches(rule: Rule, r: AdmissionRequest): boolean {
  const full = r.subResource ? `${r.resource}/${r.subResource}` : r.resource;
  const resources = rule.resources ?? [];
  const resourceOk =
    resources.includes("*") ||
    resources.includes(full) ||
    (r.subResource !== "" && resources.includes(`${r.resource}/*`)) ||
    (r.subResource !== "" && resources.includes(`*/${r.subResource}`));
  return (
    any(rule.apiGroups, r.group) && any(rule.apiVersions, r.version) && any(rule.operations, r.operation) && resourceOk
  );
}

/** matchResources / matchConstraints: rules, excludes, namespace and object selectors. */
function resourcesMatch(m: Obj | undefined, r: AdmissionRequest, view: AdmissionView): boolean {
  if (!m) return true;
  if (m.resourceRules && !(m.resourceRules as Rule[]).some((rule) => ruleMatches(rule, r))) return false;
  if ((m.excludeResourceRules as Rule[] | undefined)?.some((rule) => ruleMatches(rule, r))) return false;
  if (m.namespaceSelector) {
    // A cluster-scoped object other than a Namespace is never skipped by a namespaceSelector; a Namespace is
    // matched on its own labels.
    const labels =
      r.resource === "namespaces"
        ? ((r.object ?? r.oldObject)?.metadata?.labels ?? {})
        : r.namespace === null
          ? null
          : (namespaceObject(view, r.namespace)?.metadata?.labels ?? { "kubernetes.io/metadata.name": r.namespace });
    if (labels !== null && !selects(m.namespaceSelector as LabelSelector, labels)) return false;
  }
  if (m.objectSelector) {
    const sel = m.objectSelector as LabelSelector;
    const a = r.object ? selects(sel, r.object.metadata?.labels ?? {}) : false;
    const b = r.oldObject ? selects(sel, r.oldObject.metadata?.labels ?? {}) : false;
    if (!a && !b) return false;
  }
  return true;
}

function namespaceObject(view: AdmissionView, name: string): Obj | undefined {
  const ns = view.list("namespaces").find((n) => n.metadata?.name === name);
  if (!ns) return undefined;
  // The API server sets this label on every namespace (NamespaceDefaultLabelName, Kubernetes >= 1.22).
  return {
    ...ns,
    metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, "kubernetes.io/metadata.name": name } },
  };
}

const PLURAL_OF: Record<string, string> = { ConfigMap: "configmaps", Secret: "secrets" };

/** The request as CEL sees it (admission.k8s.io AdmissionRequest, the fields policies use). */
function celRequest(r: AdmissionRequest): Obj {
  return {
    operation: r.operation,
    kind: { group: r.group, version: r.version },
    resource: { group: r.group, version: r.version, resource: r.resource },
    subResource: r.subResource,
    name: r.name,
    namespace: r.namespace ?? "",
    userInfo: { username: r.userInfo.username, groups: r.userInfo.groups ?? [], extra: r.userInfo.extra ?? {} },
  };
}

/** Evaluates `expr`; an error is reported, never treated as true. */
function evaluate(expr: string, bindings: Obj): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const v = run(expr, bindings as never);
    if (isCelError(v)) return { ok: false, error: String((v as { message?: string }).message ?? v) };
    return { ok: true, value: v };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The denials every bound ValidatingAdmissionPolicy gives the request (`policy: message`); empty = admitted.
 * Bindings whose validationActions lack Deny (Warn, Audit only) never deny.
 */
export function admissionDenials(r: AdmissionRequest, view: AdmissionView): string[] {
  const policies = view.list("validatingadmissionpolicies");
  const denials: string[] = [];
  for (const binding of view.list("validatingadmissionpolicybindings")) {
    const policy = policies.find((p) => p.metadata?.name === binding.spec?.policyName);
    if (!policy) continue;
    const spec = policy.spec ?? {};
    const failClosed = (spec.failurePolicy ?? "Fail") === "Fail";
    const deny = ((binding.spec.validationActions ?? []) as string[]).includes("Deny");
    if (!resourcesMatch(spec.matchConstraints, r, view)) continue;
    if (!resourcesMatch(binding.spec.matchResources, r, view)) continue;
    const name = policy.metadata.name as string;
    const say = (m: string) => {
      if (deny) denials.push(`${name}: ${m}`);
    };
    const nsObj = r.namespace ? (namespaceObject(view, r.namespace) ?? null) : null;
    const base: Obj = {
      object: r.object,
      oldObject: r.oldObject,
      request: celRequest(r),
      namespaceObject: nsObj,
    };
    // Parameters: the binding's paramRef names an object of the policy's paramKind.
    let params: Obj | null = null;
    if (spec.paramKind) {
      const ref = binding.spec.paramRef;
      const plural = PLURAL_OF[spec.paramKind.kind as string];
      if (!ref || !plural) {
        if (failClosed) say(`the binding gives no parameter of kind ${spec.paramKind.kind}`);
        continue;
      }
      params =
        view
          .list(plural)
          .find(
            (o) =>
              o.metadata?.name === ref.name && (ref.namespace === undefined || o.metadata?.namespace === ref.namespace),
          ) ?? null;
      if (!params) {
        if ((ref.parameterNotFoundAction ?? "Deny") === "Deny") {
          say(`parameter ${spec.paramKind.kind} ${ref.namespace ?? ""}/${ref.name} not found`);
        }
        continue;
      }
    }
    base.params = params;
    // Match conditions: all true to apply; an error fails closed.
    let applies = true;
    for (const c of (spec.matchConditions ?? []) as { name: string; expression: string }[]) {
      const v = evaluate(c.expression, base);
      if (!v.ok) {
        if (failClosed) say(`match condition ${c.name} failed to evaluate: ${v.error}`);
        applies = false;
        break;
      }
      if (v.value !== true) {
        applies = false;
        break;
      }
    }
    if (!applies) continue;
    const variables: Obj = {};
    for (const v of (spec.variables ?? []) as { name: string; expression: string }[]) {
      const got = evaluate(v.expression, { ...base, variables });
      variables[v.name] = got.ok ? got.value : undefined;
    }
    for (const val of (spec.validations ?? []) as { expression: string; message?: string }[]) {
      const v = evaluate(val.expression, { ...base, variables });
      if (!v.ok) {
        if (failClosed) say(`${val.message ?? val.expression} (evaluation error: ${v.error})`);
      } else if (v.value !== true) say(val.message ?? `failed expression: ${val.expression}`);
    }
  }
  return denials;
}
