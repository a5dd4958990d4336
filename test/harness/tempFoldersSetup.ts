import { setUpRunFolder } from './tempFolders';

/** jest's globalSetup: see ./tempFolders.ts. */
export default function globalSetup(): void {
	setUpRunFolder();
}
