// The community-node lint: both n8n plugins, with the n8n Cloud rules (no restricted globals,
// no restricted imports, no runtime dependencies) of @n8n/eslint-plugin-community-nodes.
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

export default [
	{
		ignores: [
			'dist/**',
			'.out/**',
			'node_modules/**',
			'test/**',
			'bench/**',
			'scripts/**',
			'examples/**',
			'gulpfile.js',
		],
	},
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
	},
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: ['**/*.ts', 'package.json'],
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Main-repository rule (its own description says so): community credentials link to the
			// service's documentation by full URL, as n8n-nodes-starter also switches it off.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two demand the string 'main', which @n8n/community-nodes/node-connection-type-literal
			// forbids in favour of NodeConnectionTypes.Main; the newer plugin wins, as in n8n-nodes-starter.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
];
