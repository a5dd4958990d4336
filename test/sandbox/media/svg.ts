/** An avatar as SVG, the way an SVG avatar service writes one: a square or disc with the initials. */
export interface SvgAvatar {
	size: number;
	initials: string;
	fontSize: number;
	background: string;
	color: string;
	rounded: boolean;
	italic: boolean;
	bold: boolean;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function svgAvatar(avatar: SvgAvatar): Buffer {
	const { size } = avatar;
	const shape = avatar.rounded
		? `<circle cx="${size / 2}" cy="${size / 2}" r="${size / 2}" fill="#${avatar.background}"/>`
		: `<rect width="${size}" height="${size}" fill="#${avatar.background}"/>`;
	const style = `${avatar.bold ? ' font-weight="bold"' : ''}${avatar.italic ? ' font-style="italic"' : ''}`;
	const text =
		`<text x="50%" y="50%" dy=".1em" fill="#${avatar.color}" text-anchor="middle" dominant-baseline="middle"` +
		` font-family="Helvetica, Arial, sans-serif" font-size="${Math.round(size * avatar.fontSize * 100) / 100}"${style}>` +
		`${escapeXml(avatar.initials)}</text>`;
	return Buffer.from(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">${shape}${text}</svg>`,
	);
}
