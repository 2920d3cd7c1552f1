const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number) => String(n).padStart(2, '0');

/**
 * C `ctime` text without its newline, in the server's local time, as the reference
 * renders `modified`: `Tue Oct  4 17:32:30 2022`. The web console parses it with
 * `%a %b %d %H:%M:%S %Y` and fails on anything else.
 */
export function ctime(secondsSince1970: number): string {
  const d = new Date(secondsSince1970 * 1000);
  return `${days[d.getDay()]} ${months[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${d.getFullYear()}`;
}
