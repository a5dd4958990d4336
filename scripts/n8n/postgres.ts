import { spawnSync } from 'child_process';
import { existsSync, promises as fs } from 'fs';
import os from 'os';
import path from 'path';

/**
 * A throw-away PostgreSQL cluster for n8n (Debian's `postgresql` package): a data folder of its
 * own under the system's temporary folder, listening on 127.0.0.1 only, trusting local
 * connections, removed when stopped. The server refuses to run as root, so it runs as the
 * package's `postgres` user when this script is root.
 */
export interface Postgres {
	env: NodeJS.ProcessEnv;
	stop(): Promise<void>;
}

const BIN_FOLDERS = [
	'/usr/lib/postgresql/17/bin',
	'/usr/lib/postgresql/16/bin',
	'/usr/lib/postgresql/15/bin',
];

export function postgresBinaries(): string | undefined {
	return BIN_FOLDERS.find((folder) => existsSync(path.join(folder, 'pg_ctl')));
}

export async function startPostgres(port: number): Promise<Postgres> {
	const bin = postgresBinaries();
	if (!bin) {
		throw new Error(
			"queue mode needs PostgreSQL: install Debian's postgresql (`apt-get install postgresql`) and run again",
		);
	}
	const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'n8n-abstractapi-postgres-'));
	const data = path.join(folder, 'data');
	const asRoot = process.getuid?.() === 0;
	if (asRoot) {
		spawnSync('chown', ['-R', 'postgres:postgres', folder]);
	}
	const run = (command: string, args: string[]) => {
		const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, command), ...args] : args;
		const result = spawnSync(asRoot ? 'runuser' : path.join(bin, command), argv, {
			encoding: 'utf8',
		});
		if (result.status !== 0) {
			throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
		}
	};
	try {
		run('initdb', ['-D', data, '--auth=trust', '--username=n8n', '--encoding=UTF8']);
		run('pg_ctl', [
			'-D',
			data,
			'-l',
			path.join(folder, 'log'),
			'-o',
			`-p ${port} -k ${folder} -c listen_addresses=127.0.0.1`,
			'-w',
			'start',
		]);
		run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', 'n8n']);
	} catch (error) {
		await fs.rm(folder, { recursive: true, force: true });
		throw error;
	}
	return {
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: '',
		},
		stop: async () => {
			try {
				run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
			} finally {
				await fs.rm(folder, { recursive: true, force: true });
			}
		},
	};
}
