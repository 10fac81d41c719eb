// Date and time formats of RFC 3339 §5.6 (date, time, date-time, with leap seconds only at
// 23:59:60 UTC) and its appendix A durations.

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// RFC 3339 appendix A: dur-year holds an optional dur-month, which holds an optional dur-day.
const DUR_TIME = 'T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)';
const DUR_DATE = `(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:${DUR_TIME})?`;
const DURATION = new RegExp(`^P(?:${DUR_DATE}|${DUR_TIME}|[0-9]+W)$`);

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= days;
}

export function isTime(text: string): boolean {
  const m = TIME.exec(text);
  if (m === null) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const sign = m[4] === '-' ? -1 : 1;
  const offsetHour = Number(m[5] ?? 0);
  const offsetMinute = Number(m[6] ?? 0);
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  // A leap second is 23:59:60 in UTC, whatever the local offset.
  const utcMinutes = (((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

export function isDateTime(text: string): boolean {
  const t = text.search(/[Tt]/);
  return t === 10 && isDate(text.slice(0, t)) && isTime(text.slice(t + 1));
}

export function isDuration(text: string): boolean {
  return DURATION.test(text);
}
