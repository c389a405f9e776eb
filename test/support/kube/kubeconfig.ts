/** A kubeconfig file for the fake API server (test/support/kube/fake-api.ts). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A kubeconfig for `server` with contexts `fake` (current) and `other`; skipTLSVerify allows plain http. */
export function writeKubeconfig(server: string, token = "test-token"): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-kubeconfig-"));
  const file = join(dir, "config");
  writeFileSync(
    file,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: fake",
      "  cluster:",
      `    server: ${server}`,
      "    insecure-skip-tls-verify: true",
      "users:",
      "- name: tester",
      "  user:",
      `    token: ${token}`,
      "contexts:",
      "- name: fake",
      "  context: {cluster: fake, user: tester, namespace: default}",
      "- name: other",
      "  context: {cluster: fake, user: tester}",
      "current-context: fake",
      "",
    ].join("\n"),
  );
  return file;
}
