/**
 * Appends a versioned path to a Base URL. The Base URL may carry a path prefix (an API gateway,
 * a sandbox), which is kept: `https://gw.example/abstract/` + `/v1/` is `https://gw.example/abstract/v1/`.
 */
export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** A URL's host, for messages and file names; never its query (which may hold a signature). */
export function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return 'the service';
	}
}
