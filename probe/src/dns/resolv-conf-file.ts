/** Reading the resolv.conf the probe resolves with, and saying plainly why it cannot be used. */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolvConfProblem } from './resolv-conf.ts';

/** The file's text, or why the file cannot be a resolv.conf (a sentence naming the flag and path). */
export type ResolvConfRead = { readonly text: string } | { readonly problem: string };

const READ_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'does not exist',
  EISDIR: 'is a directory, not a file',
  EACCES: 'is not readable by this process',
  EPERM: 'is not readable by this process',
  ENOTDIR: 'does not exist (a parent is not a directory)',
  ELOOP: 'is a symbolic link loop',
};

/** Why reading `path` failed, as a sentence. */
export function readProblem(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const why = READ_PROBLEMS[code] ?? `cannot be read: ${err instanceof Error ? err.message : String(err)}`;
  return `--resolv-conf ${path} ${why}${code === '' ? '' : ` (${code})`}`;
}

/** The text read from `path`, or what is wrong with it. */
export function judgeResolvConf(path: string, text: string): ResolvConfRead {
  const problem = resolvConfProblem(text);
  return problem === undefined ? { text } : { problem: `--resolv-conf ${path} ${problem}` };
}

/** Reads and judges the file, for every probe round. */
export async function readResolvConf(
  path: string,
  read: (path: string) => Promise<string> = (p) => readFile(p, 'utf8'),
): Promise<ResolvConfRead> {
  let text: string;
  try {
    text = await read(path);
  } catch (err: unknown) {
    return { problem: readProblem(path, err) };
  }
  return judgeResolvConf(path, text);
}

/** The start-up check: undefined when `path` is a usable resolv.conf, else what is wrong. */
export function resolvConfFileProblem(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err: unknown) {
    return readProblem(path, err);
  }
  const judged = judgeResolvConf(path, text);
  return 'problem' in judged ? judged.problem : undefined;
}
