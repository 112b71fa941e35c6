/** Conversions between epoch milliseconds and the API's timestamp strings. */
import type { MicroTime, Time } from './meta.ts';

/** `2024-01-25T04:05:57Z`: RFC 3339 with second precision, as metav1.Time serialises. */
export function formatTime(ms: number): Time {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `2024-01-25T04:05:57.123000Z`: six fractional digits, as metav1.MicroTime needs. */
export function formatMicroTime(ms: number): MicroTime {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Epoch milliseconds of an RFC 3339 timestamp; undefined when absent or unparsable. */
export function parseTime(t: string | undefined): number | undefined {
  if (t === undefined || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
