// Copies node and credential icons next to the compiled files in dist/, where n8n looks for them.
const path = require('path');
const { task, src, dest } = require('gulp');

task('build:icons', copyIcons);

function copyIcons() {
	const nodeIcons = src(['nodes/**/*.{png,svg}', 'icons/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	});
	return nodeIcons.pipe(dest(path.resolve('dist')));
}
