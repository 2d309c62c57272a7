import { afterAll } from 'vitest';
import { removeFoldersOfFile } from '../helpers.js';

// Setup files run again for every test file, in both passes: the shared modules' temp folders go with their file.
afterAll(removeFoldersOfFile);
