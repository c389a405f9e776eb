/** Structured logs: one JSON object per line on stderr, so `kubectl logs` stays greppable and machine-readable. */
export type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, string | number | boolean | null | undefined | readonly string[]>;
export type LogRecord = { level: LogLevel; msg: string } & LogFields;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** Renders one record as a single line (no newline inside: values are JSON-escaped). */
export function formatLogLine(time: Date, level: LogLevel, msg: string, fields: LogFields = {}): string {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return `${JSON.stringify({ time: time.toISOString(), level, msg, ...defined })}\n`;
}

/** A logger that writes lines through `write` (stderr in the CLI). */
export function lineLogger(write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  const emit = (level: LogLevel) => (msg: string, fields?: LogFields) =>
    write(formatLogLine(now(), level, msg, fields));
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** A logger that keeps records in memory (tests read them back). */
export function memoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const emit = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    records.push({ ...(fields ?? {}), level, msg });
  };
  return { records, info: emit("info"), warn: emit("warn"), error: emit("error") };
}
