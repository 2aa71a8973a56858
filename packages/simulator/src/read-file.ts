// Reading a file a scenario names (the scenario itself, a trace): a regular file only, up to a
// size. Opened without blocking (a FIFO would otherwise wait for a writer for ever), checked on the
// open descriptor (no race between a check and the read), read to its end but never past the limit
// (a /proc file says size 0 and holds more; a log may grow while it is read).
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { count } from './limits.js';

const NONBLOCK = constants.O_NONBLOCK ?? 0; // not on Windows, where a FIFO is not opened by path
const CHUNK = 1 << 20;

/**
 * A file that cannot be read as a scenario or a trace: missing, not a regular file, too large.
 * `reason` says which, without anything the file holds.
 *
 * @example
 * ```ts
 * try {
 *   readRegularFile('/dev/zero', 1024);
 * } catch (error) {
 *   if (error instanceof FileReadError) console.error(error.reason); // 'not a regular file (a character device)'
 * }
 * ```
 */
export class FileReadError extends Error {
  override name = 'FileReadError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot read ${path}: ${reason}`);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder, not a file';
  const kind = stats.isFIFO()
    ? 'a FIFO'
    : stats.isCharacterDevice()
      ? 'a character device'
      : stats.isBlockDevice()
        ? 'a block device'
        : stats.isSocket()
          ? 'a socket'
          : 'not a file';
  return `not a regular file (${kind})`;
}

function bytes(n: number): string {
  return n >= 1 << 20 ? `${+(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

const tooLarge = (path: string, size: number | undefined, max: number): FileReadError =>
  new FileReadError(path, `${size === undefined ? '' : `${count(size)} bytes, `}more than the ${count(max)} (${bytes(max)}) it may have`);

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return typeof code === 'string' ? code : 'cannot open it';
}

/**
 * Reads a regular file as UTF-8 text, at most `maxBytes`: anything else — a folder, a FIFO, a
 * device, a socket, a file larger than that (or growing past it while read) — throws a
 * {@link FileReadError} whose reason names the kind or the size, never the content.
 *
 * @example
 * ```ts
 * const text = readRegularFile('access.jsonl', LIMITS.maxTraceBytes);
 * ```
 */
export function readRegularFile(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    throw new FileReadError(path, reasonOf(error));
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FileReadError(path, kindOf(stats));
    if (stats.size > maxBytes) throw tooLarge(path, stats.size, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes - total + 1));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new FileReadError(path, reasonOf(error));
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(path, undefined, maxBytes);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
