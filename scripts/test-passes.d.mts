/** The lines that end `npm test`, from each pass's name, output and exit code. */
export function closingLines(passes: ReadonlyArray<{ name: string; output: string; exit: number | string | undefined }>): string[];
