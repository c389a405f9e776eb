/**
 * Lines a process prints as it dies of a signal, whatever program it runs: Open MPI's handler
 * (`[host:pid] *** Process received signal ***`, opal/util/stacktrace.c in https://github.com/open-mpi/ompi), Python's
 * faulthandler (`Fatal Python error: Segmentation fault`), a shell's report (`Segmentation fault (core dumped)`), UCX's
 * (`Caught signal 11 (Segmentation fault: …)`). The one home of these shapes: the NCCL log reads a crash during init by
 * them, nccl-tests a run that died.
 */
export const SIGNAL_HANDLER = /\*\*\* Process received signal \*\*\*/;

export const PROCESS_CRASH = new RegExp(
  `Fatal Python error: (?:Segmentation fault|Aborted|Bus error)|${SIGNAL_HANDLER.source}|^\\S*\\s*Segmentation fault(?: \\(core dumped\\))?\\s*$|Caught signal \\d+ \\(`,
);
