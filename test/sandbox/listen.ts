import type http from 'http';
import type { AddressInfo } from 'net';

/**
 * Starts a server on `port` (0: any free one) and resolves to the port it took; a port already
 * in use is an error that names it, rather than a start that never ends.
 */
export function listen(
	server: http.Server,
	port: number,
	host: string,
	what: string,
): Promise<number> {
	return new Promise((resolve, reject) => {
		const failed = (error: NodeJS.ErrnoException) =>
			reject(
				new Error(
					error.code === 'EADDRINUSE'
						? `${what}: port ${port} on ${host} is already in use`
						: `${what}: ${error.message}`,
				),
			);
		server.once('error', failed);
		server.listen(port, host, () => {
			server.removeListener('error', failed);
			resolve((server.address() as AddressInfo).port);
		});
	});
}
