/** The board page, byte for byte what the server serves. */
export function buildBoardHtml(): Promise<string>;
/** The generated module's text. */
export function buildBoardModule(): Promise<string>;
export const GENERATED_PATH: string;
