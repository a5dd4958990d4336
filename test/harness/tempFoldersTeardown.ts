import { tearDownRunFolder } from './tempFolders';

/** jest's globalTeardown: fails the run if a test left a temporary folder or file (see ./tempFolders.ts). */
export default function globalTeardown(): void {
	const left = tearDownRunFolder();
	if (left.length > 0) {
		throw new Error(
			`The tests left ${left.length} temporary folder(s) or file(s) behind (now removed): ${left.join(', ')}. ` +
				'A test that makes one removes it in afterAll or a finally block.',
		);
	}
}
