/**
 * Splits a byte stream into lines (newline-delimited JSON, as watch responses are). Chunks may
 * end anywhere, including inside a multi-byte UTF-8 character; blank lines and a trailing `\r`
 * are dropped.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8');
  private partial = '';

  /** Feeds one chunk; returns the lines it completed. */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!text.includes('\n')) {
      this.partial += text;
      return [];
    }
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    return clean(parts);
  }

  /** The stream ended: returns the last line if it had no newline. */
  end(): string[] {
    const rest = this.partial + this.decoder.decode();
    this.partial = '';
    return clean([rest]);
  }
}

function clean(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '') out.push(line);
  }
  return out;
}
