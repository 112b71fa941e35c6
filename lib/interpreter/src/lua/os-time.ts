/**
 * `os.time` and `os.date` as Karmada gives them to scripts (its own safe subset, not C's):
 *
 * - `os.time()` is the current Unix time in seconds; `os.time(t)` reads year, month, day, hour
 *   (default 12), min and sec from a table in local time, out-of-range fields rolling over.
 * - `os.date(format, time)`: format defaults to `%c`; a leading `!` means UTC (unless a time is
 *   given, which is then read in local time); `*t` returns a table (yday is always 0 and isdst
 *   false). The conversions are %a (the literal "mon", as Karmada prints it), %A, %b, %B,
 *   %c ("02 Jan 06 15:04 MST"), %d, %F, %H, %I, %m, %M, %p, %P, %S, %w, %x ("15/04/05"), %X, %y,
 *   %Y, %z, %Z and %%; any other %c stays as written.
 */
import type { JsonObject } from '../json.ts';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** One instant read either in UTC or in the process's local time zone. */
class Clock {
  private readonly date: Date;
  readonly utc: boolean;

  constructor(date: Date, utc: boolean) {
    this.date = date;
    this.utc = utc;
  }

  get year(): number {
    return this.utc ? this.date.getUTCFullYear() : this.date.getFullYear();
  }
  get month(): number {
    return (this.utc ? this.date.getUTCMonth() : this.date.getMonth()) + 1;
  }
  get day(): number {
    return this.utc ? this.date.getUTCDate() : this.date.getDate();
  }
  get hour(): number {
    return this.utc ? this.date.getUTCHours() : this.date.getHours();
  }
  get minute(): number {
    return this.utc ? this.date.getUTCMinutes() : this.date.getMinutes();
  }
  get second(): number {
    return this.utc ? this.date.getUTCSeconds() : this.date.getSeconds();
  }
  get weekday(): number {
    return this.utc ? this.date.getUTCDay() : this.date.getDay();
  }
  /** Minutes east of UTC. */
  get offset(): number {
    return this.utc ? 0 : -this.date.getTimezoneOffset();
  }
  get zone(): string {
    if (this.utc) return 'UTC';
    const parts = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(this.date);
    return parts.find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
  }
}

export function osTime(fields?: JsonObject): number {
  if (fields === undefined) return Math.floor(Date.now() / 1000);
  const field = (name: string, fallback: number): number => {
    const v = fields[name];
    return typeof v === 'number' ? Math.trunc(v) : fallback;
  };
  const date = new Date(2000, 0, 1, 0, 0, 0, 0);
  date.setFullYear(field('year', -1), field('month', -1) - 1, field('day', -1));
  date.setHours(field('hour', 12), field('min', 0), field('sec', 0), 0);
  return Math.floor(date.getTime() / 1000);
}

export function osDate(format: string | undefined, time: number | undefined): string | JsonObject {
  let layout = format ?? '%c';
  let utc = false;
  if (layout.startsWith('!')) {
    utc = true;
    layout = layout.replace(/^!+/, '');
  }
  const clock =
    time === undefined ? new Clock(new Date(), utc) : new Clock(new Date(Math.trunc(time) * 1000), false);
  if (layout.startsWith('*t')) return dateTable(clock);
  return strftime(clock, layout);
}

function dateTable(c: Clock): JsonObject {
  return {
    year: c.year,
    month: c.month,
    day: c.day,
    hour: c.hour,
    min: c.minute,
    sec: c.second,
    wday: c.weekday + 1,
    yday: 0,
    isdst: false,
  };
}

function strftime(c: Clock, layout: string): string {
  let out = '';
  for (let i = 0; i < layout.length; i++) {
    const ch = layout[i] ?? '';
    if (ch !== '%' || i === layout.length - 1) {
      out += ch;
      continue;
    }
    const flag = layout[++i] ?? '';
    out += flag === '%' ? '%' : (conversion(c, flag) ?? `%${flag}`);
  }
  return out;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const hour12 = (h: number): number => (h % 12 === 0 ? 12 : h % 12);

function conversion(c: Clock, flag: string): string | undefined {
  const formats: Readonly<Record<string, () => string>> = {
    a: () => 'mon',
    A: () => WEEKDAYS[c.weekday] ?? '',
    b: () => (MONTHS[c.month - 1] ?? '').slice(0, 3),
    B: () => MONTHS[c.month - 1] ?? '',
    c: () =>
      `${pad(c.day)} ${(MONTHS[c.month - 1] ?? '').slice(0, 3)} ${pad(c.year % 100)} ${pad(c.hour)}:${pad(c.minute)} ${c.zone}`,
    d: () => pad(c.day),
    F: () => `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}`,
    H: () => pad(c.hour),
    I: () => pad(hour12(c.hour)),
    m: () => pad(c.month),
    M: () => pad(c.minute),
    p: () => (c.hour < 12 ? 'AM' : 'PM'),
    P: () => (c.hour < 12 ? 'am' : 'pm'),
    S: () => pad(c.second),
    w: () => String(c.weekday),
    x: () => `${pad(c.hour)}/${pad(c.minute)}/${pad(c.second)}`,
    X: () => `${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`,
    y: () => pad(c.year % 100),
    Y: () => pad(c.year, 4),
    z: () => offsetText(c.offset),
    Z: () => c.zone,
  };
  return formats[flag]?.();
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60))}${pad(m % 60)}`;
}
