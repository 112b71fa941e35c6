/**
 * Strings between JavaScript and the wasm heap. Lua copies (and interns) what it is given, so one
 * scratch buffer serves every push; short ASCII strings, the bulk of a Kubernetes object's keys and
 * values, skip the TextEncoder/TextDecoder round trip, which costs more than the copy itself.
 */
import type { LuaState, Pointer, RawLua } from './raw.ts';

const SHORT = 64;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class LuaStrings {
  private readonly raw: RawLua;
  private buffer: Pointer;
  private capacity: number;
  /** A size_t slot for lua_tolstring's length. */
  private readonly lengthSlot: Pointer;

  constructor(raw: RawLua) {
    this.raw = raw;
    this.capacity = 4096;
    this.buffer = raw._malloc(this.capacity);
    this.lengthSlot = raw._malloc(8);
  }

  /** Pushes `text` as a Lua string (UTF-8). */
  push(L: LuaState, text: string): void {
    const length = this.write(text);
    this.raw._lua_pushlstring(L, this.buffer, length);
  }

  /** Copies `text` NUL-terminated into the scratch buffer and returns its address. */
  cString(text: string): Pointer {
    const length = this.write(text);
    this.raw.HEAPU8[this.buffer + length] = 0;
    return this.buffer;
  }

  /** The string at `idx`, which must be a string (a number would be converted in place). */
  read(L: LuaState, idx: number): string {
    const ptr = this.raw._lua_tolstring(L, idx, this.lengthSlot);
    const length = this.raw.HEAPU32[this.lengthSlot >> 2] ?? 0;
    const heap = this.raw.HEAPU8;
    if (length <= SHORT) {
      const ascii = asciiAt(heap, ptr, length);
      if (ascii !== undefined) return ascii;
    }
    return decoder.decode(heap.subarray(ptr, ptr + length));
  }

  /** Writes UTF-8 into the scratch buffer (growing it as needed) and returns the byte length. */
  private write(text: string): number {
    const worst = text.length * 3 + 1;
    if (worst > this.capacity) this.grow(worst);
    const heap = this.raw.HEAPU8;
    if (text.length <= SHORT) {
      const written = writeAscii(heap, this.buffer, text);
      if (written >= 0) return written;
    }
    return encoder.encodeInto(text, heap.subarray(this.buffer, this.buffer + this.capacity)).written;
  }

  private grow(size: number): void {
    this.raw._free(this.buffer);
    this.capacity = Math.max(size, this.capacity * 2);
    this.buffer = this.raw._malloc(this.capacity);
  }
}

function asciiAt(heap: Uint8Array, ptr: Pointer, length: number): string | undefined {
  let out = '';
  for (let i = 0; i < length; i++) {
    const c = heap[ptr + i] ?? 0;
    if (c >= 0x80) return undefined;
    out += String.fromCharCode(c);
  }
  return out;
}

/** -1 when `text` is not pure ASCII (the caller then encodes it properly). */
function writeAscii(heap: Uint8Array, ptr: Pointer, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    heap[ptr + i] = c;
  }
  return text.length;
}
