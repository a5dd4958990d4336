/**
 * Lets a forked child `require` the TypeScript of test/ directly (as ts-jest does for jest
 * itself): each .ts file is transpiled on load with the project's own TypeScript, no types
 * checked. The children of the multi-process test and of the hostile-file tests use it.
 */
const fs = require('fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, {
		fileName: filename,
		compilerOptions: {
			module: ts.ModuleKind.CommonJS,
			target: ts.ScriptTarget.ES2022,
			esModuleInterop: true,
		},
	});
	module._compile(outputText, filename);
};
