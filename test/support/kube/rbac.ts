/**
 * RBAC authorization as the API server's RBAC authorizer decides it, from the Roles, ClusterRoles and bindings a test
 * cluster holds: a request is allowed when some rule of a role bound to the user (by name, group, or ServiceAccount
 * subject) covers its API group, resource (`pods/log` for a subresource), verb and — where the rule names
 * resourceNames — its object name. A ClusterRole bound by a RoleBinding grants only in that namespace. Rules are
 * additive; there is no deny. `list`/`watch` with resourceNames is allowed only for a request that names the object
 * (fieldSelector metadata.name=NAME), `create` never matches resourceNames (the name is not known to the authorizer).
 * Semantics: https://kubernetes.io/docs/reference/access-authn-authz/rbac/ (Role and ClusterRole, RoleBinding and
 * ClusterRoleBinding, Referring to resources, Referring to subjects). Members of system:masters are allowed
 * everything (the superuser group).
 */
import type { UserInfo } from "./admission.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
type Obj = Record<string, any>;

export type AuthzRequest = {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string | null;
  name: string;
  user: UserInfo;
};

export type RbacView = { list(plural: string): Obj[] };

function subjectIs(s: Obj, user: UserInfo): boolean {
  if (s.kind === "User") return s.name === user.username;
  if (s.kind === "Group") return (user.groups ?? []).includes(s.name);
  if (s.kind === "ServiceAccount") return user.username === `system:serviceaccount:${s.namespace}:${s.name}`;
  return false;
}

function ruleAllows(rule: Obj, r: AuthzRequest): boolean {
  const has = (list: string[] | undefined, v: string) => !!list && (list.includes("*") || list.includes(v));
  const full = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  if (!has(rule.apiGroups, r.group)) return false;
  if (!has(rule.verbs, r.verb)) return false;
  const resources: string[] = rule.resources ?? [];
  if (
    !(
      resources.includes("*") ||
      resources.includes(full) ||
      (r.subresource && resources.includes(`*/${r.subresource}`))
    )
  )
    return false;
  const names: string[] | undefined = rule.resourceNames;
  if (names && names.length > 0) return r.name !== "" && names.includes(r.name);
  return true;
}

/** Why the request is refused (the API server's 403 text), or null when RBAC allows it. */
export function rbacDenial(r: AuthzRequest, view: RbacView): string | null {
  if ((r.user.groups ?? []).includes("system:masters")) return null;
  const roles = (plural: string) => view.list(plural);
  const roleRules = (ref: Obj, ns: string | null): Obj[] => {
    if (ref.kind === "ClusterRole")
      return roles("clusterroles").find((x) => x.metadata?.name === ref.name)?.rules ?? [];
    return roles("roles").find((x) => x.metadata?.name === ref.name && x.metadata?.namespace === ns)?.rules ?? [];
  };
  const grants: Obj[] = [];
  for (const b of roles("clusterrolebindings")) {
    if ((b.subjects ?? []).some((s: Obj) => subjectIs(s, r.user))) grants.push(...roleRules(b.roleRef, null));
  }
  if (r.namespace !== null) {
    for (const b of roles("rolebindings")) {
      if (b.metadata?.namespace !== r.namespace) continue;
      if ((b.subjects ?? []).some((s: Obj) => subjectIs(s, r.user))) grants.push(...roleRules(b.roleRef, r.namespace));
    }
  }
  if (grants.some((rule) => ruleAllows(rule, r))) return null;
  const full = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const scope = r.namespace !== null ? `in the namespace "${r.namespace}"` : "at the cluster scope";
  return `${full}${r.name ? ` "${r.name}"` : ""} is forbidden: User "${r.user.username}" cannot ${r.verb} resource "${full}" in API group "${r.group}" ${scope}`;
}
