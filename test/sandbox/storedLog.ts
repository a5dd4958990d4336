/**
 * A web server's access log as a CSV export, the input of the log example (a Read/Write Files
 * node reading `.../access-log.csv`), as a user would have stored it: a header row, a user agent
 * quoted with commas and quotes in it, IPv4 and IPv6 clients that come back again and again, a
 * private address (found in no database), CRLF line ends.
 */
const LINES: Array<[string, string, string, string]> = [
	['2026-11-02T08:14:03Z', '81.2.69.160', 'GET /pricing', '200'],
	['2026-11-02T08:14:09Z', '2001:4860:4860::8888', 'GET /docs/install', '200'],
	['2026-11-02T08:15:40Z', '81.2.69.160', 'POST /signup', '302'],
	['2026-11-02T08:17:12Z', '89.160.20.112', 'GET /blog/ip-databases', '200'],
	['2026-11-02T08:17:13Z', '10.0.0.7', 'GET /health', '200'],
	['2026-11-02T08:20:55Z', '38.100.1.1', 'GET /pricing', '200'],
	['2026-11-02T08:21:02Z', '81.2.69.160', 'GET /dashboard', '200'],
	['2026-11-02T08:22:31Z', '2a02:26f0::1f', 'GET /', '200'],
	['2026-11-02T08:22:47Z', '2001:4860:4860::8888', 'GET /docs/api', '404'],
	['2026-11-02T08:25:10Z', '211.234.10.20', 'GET /pricing', '200'],
	['2026-11-02T08:25:11Z', '89.160.20.112', 'GET /blog/ip-databases', '304'],
	['2026-11-02T08:30:00Z', '81.2.69.160', 'GET /logout', '302'],
];

const AGENT = '"Mozilla/5.0 (X11; Linux x86_64) ""Firefox"", rv:131.0"';

export const STORED_LOG_CSV = ['time,client_ip,request,http_status,user_agent', ...LINES.map((cells) => `${cells.join(',')},${AGENT}`)].join('\r\n') + '\r\n';
