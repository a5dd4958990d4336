import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { ROOT } from '../../test/harness/root';
import { readManifest, type PackageManifest } from './communityPackage';
import {
	instanceEnvironment,
	isN8n1,
	LOCAL_OWNER,
	ownerPasswordHash,
	setUpOwner,
	signIn,
	startServer,
	type Server,
} from './instance';
import { checkLoadedTypes, listedTypes, type ListedType, type LoadReport } from './loadingCheck';
import { freePort } from './processes';
import { installAsReadmeSays } from './readmeInstall';
import { ensureRuntime, type Runtime, type RuntimeSpec } from './runtime';

export { ROOT };

/** n8n installed, and the package installed into a fresh user folder: what dev and e2e share. */
export interface Prepared {
	runtime: Runtime;
	manifest: PackageManifest;
	/** The types package.json lists, named from the repository's build. */
	listed: ListedType[];
	/** A temporary folder for this run: n8n's home folder and what the run keeps beside it. */
	workFolder: string;
	/**
	 * n8n's fresh user folder (N8N_USER_FOLDER; n8n's own files in its `.n8n`). By default also its
	 * HOME and working directory, holding nothing else but an empty `.n8n-files`: what a new user
	 * has after following n8n's docs.
	 */
	userFolder: string;
	/** n8n's HOME and working directory: the user folder, or a folder of its own (`userFolderApart`). */
	home: string;
	/** `<home>/.n8n-files`: the only folder n8n 2.x's file nodes may use by default. */
	filesFolder: string;
	/** The installed copy: <userFolder>/.n8n/nodes/node_modules/<package>. */
	packageDir: string;
	passwordHash: string;
}

/**
 * Installs n8n (the line or version `spec` names; default 2.x) if the cache lacks it, makes n8n
 * a fresh home folder holding an empty `.n8n-files` (what n8n's docs ask of a user) and installs
 * the built package (dist/ must be current: the npm scripts build first) into it with the
 * README's own install commands: packed, and the tarball installed into `~/.n8n/nodes`. With
 * `userFolderApart`, n8n's user folder is a folder of its own beside that home
 * (`N8N_USER_FOLDER`), as a person who sets it has, and the package goes into its `.n8n/nodes`.
 */
export async function prepare(
	label: string,
	log: (line: string) => void,
	spec?: RuntimeSpec,
	options: { userFolderApart?: boolean } = {},
): Promise<Prepared> {
	const runtime = await ensureRuntime(log, spec);
	const manifest = await readManifest(ROOT);
	const listed = listedTypes(ROOT, manifest);
	const workFolder = await fs.mkdtemp(path.join(os.tmpdir(), `n8n-abstractapi-${label}-`));
	try {
		const home = path.join(workFolder, 'home');
		const userFolder = options.userFolderApart ? path.join(workFolder, 'n8n-user-folder') : home;
		const filesFolder = path.join(home, '.n8n-files');
		await fs.mkdir(filesFolder, { recursive: true });
		await fs.mkdir(userFolder, { recursive: true });
		const packageDir = await installAsReadmeSays(
			ROOT,
			home,
			manifest,
			path.join(workFolder, 'npm-cache'),
			userFolder,
		);
		log(
			`Installed ${manifest.name} ${manifest.version} with the README's commands into n8n ${runtime.n8nVersion}'s fresh ${userFolder === home ? `home folder ${home}` : `user folder ${userFolder} (N8N_USER_FOLDER; its home folder ${home})`}`,
		);
		return {
			runtime,
			manifest,
			listed,
			workFolder,
			userFolder,
			home,
			filesFolder,
			packageDir,
			passwordHash: await ownerPasswordHash(runtime, LOCAL_OWNER),
		};
	} catch (error) {
		// A run that cannot start leaves nothing behind.
		await fs.rm(workFolder, { recursive: true, force: true });
		throw error;
	}
}

/** Empties n8n's `~/.n8n-files`, so that every file found there afterwards was written since. */
export async function emptyFilesFolder(prepared: Prepared): Promise<void> {
	await fs.rm(prepared.filesFolder, { recursive: true, force: true });
	await fs.mkdir(prepared.filesFolder);
}

/**
 * The environment of an n8n process on this user folder: the editor on the given port, else
 * N8N_PORT, else a free one; its task broker (which n8n would put on 5679, or take as N8N_PORT+1
 * in a person's setup) on the given port, else N8N_RUNNERS_BROKER_PORT, else a free one, so it
 * never clashes with a neighbouring port the sandbox or another instance holds.
 */
export async function environmentFor(
	prepared: Prepared,
	port?: number,
	brokerPort?: number,
): Promise<NodeJS.ProcessEnv> {
	return instanceEnvironment(prepared.runtime, {
		userFolder: prepared.userFolder,
		home: prepared.home,
		port: port ?? (Number(process.env.N8N_PORT) || (await freePort())),
		brokerPort: brokerPort ?? (Number(process.env.N8N_RUNNERS_BROKER_PORT) || (await freePort())),
		owner: { owner: LOCAL_OWNER, passwordHash: prepared.passwordHash },
	});
}

/**
 * Starts the editor, signs in as the owner and checks what it offers against package.json.
 * The server keeps running (the caller stops it); on a failed start it is already stopped.
 */
export async function startAndCheck(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	onLine?: (line: string) => void,
): Promise<{ server: Server; cookie: string; report: LoadReport }> {
	const server = await startServer(prepared.runtime, env, { onLine });
	try {
		if (isN8n1(prepared.runtime)) await setUpOwner(server, LOCAL_OWNER);
		const cookie = await signIn(server, LOCAL_OWNER);
		const report = await checkLoadedTypes(server, cookie, prepared);
		return { server, cookie, report };
	} catch (error) {
		await server.stop();
		throw error;
	}
}
