/**
 * Lines a process prints as it dies of a signal, whatever program it runs: Open MPI's handler
 * (`[host:pid] *** Process received signal ***`, opal/util/stacktrace.c in https://github.com/open-mpi/ompi), Python's
 * faulthandler (`Fatal Python error: Segmentation fault`), a shell's report (`Segmentation fault (core dumped)`), UCX's
 * (`Caught signal 11 (Segmentation fault: …)`), Abseil's (`*** SIGSEGV received at time=… ***`,
 * absl/debugging/failure_signal_handler.cc in https://github.com/abseil/abseil-cpp). The one home of these shapes: the NCCL log reads a crash during init by
 * them, nccl-tests a run that died.
 */
export const SIGNAL_HANDLER = /\*\*\* Process received signal \*\*\*/;

/** Abseil's failure signal handler (Ray's, gRPC's): `*** SIGSEGV received at time=1747821782 on cpu 137 ***`. */
const ABSL_SIGNAL = /\*\*\* SIG[A-Z]+ received at time=\d+/;

export const PROCESS_CRASH = new RegExp(
  `Fatal Python error: (?:Segmentation fault|Aborted|Bus error)|${SIGNAL_HANDLER.source}|^\\S*\\s*Segmentation fault(?: \\(core dumped\\))?\\s*$|Caught signal \\d+ \\(|${ABSL_SIGNAL.source}`,
);

/** PROCESS_CRASH, after a cheap test of what every one of its lines holds (a log's every line may be asked). */
export function isCrashLine(text: string): boolean {
  const may = text.includes("***") || text.includes("ault") || text.includes("Fatal") || text.includes("Caught signal");
  return may && PROCESS_CRASH.test(text);
}
