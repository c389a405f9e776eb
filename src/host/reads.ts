/**
 * The batch reads a HostReader may offer (readIn, readNumbered, listNumbers), asked of any reader: its own when it
 * has them, else the same answers one readText or list at a time.
 */
import { numericNames } from "../core/natural.js";
import type { HostReader, ReadOutcome } from "./types.js";

/**
 * `${dir}/${name}` for each name, in one call where the reader can (a snapshot looks the directory up once). `unused`:
 * texts the caller discards, which need not pass the checks of a used one (HostReader.readIn).
 */
export function readIn(
  reader: HostReader,
  dir: string,
  names: readonly string[],
  unused?: (text: string) => boolean,
): ReadOutcome<string>[] {
  if (reader.readIn) return reader.readIn(dir, names, unused);
  return names.map((n) => reader.readText(`${dir}/${n}`));
}

/** `${dir}/${n}` for each number (a GID table's slots), without building the names where the reader can. */
export function readNumbered(
  reader: HostReader,
  dir: string,
  numbers: readonly number[],
  unused?: (text: string) => boolean,
): ReadOutcome<string>[] {
  if (reader.readNumbered) return reader.readNumbered(dir, numbers, unused);
  return readIn(reader, dir, numbers.map(String), unused);
}

/** A binary file's bytes as hex text (`encodeBytesHex`); a snapshot holds that text as the file's content. */
export function readBinaryHex(reader: HostReader, path: string): ReadOutcome<string> {
  return reader.readBinaryHex ? reader.readBinaryHex(path) : reader.readText(path);
}

/** The decimal names of a directory, ascending (a snapshot answers from its runs, without writing names out). */
export function listNumbers(reader: HostReader, dir: string): ReadOutcome<number[]> {
  if (reader.listNumbers) return reader.listNumbers(dir);
  const list = reader.list(dir);
  return list.ok ? { ok: true, value: numericNames(list.value) } : list;
}
