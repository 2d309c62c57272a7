export function buildInputsHash(root: string): string;
export function distIsCurrent(root: string): boolean;
