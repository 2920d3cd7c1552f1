/**
 * Loaded with `node -r` into a child a bench measures: at exit it writes the process's peak
 * resident memory (`peak_rss_kib=N`, from getrusage) as the last line on stderr.
 */
process.on('exit', () => {
  process.stderr.write(`peak_rss_kib=${process.resourceUsage().maxRSS}\n`);
});
