/** The command's version (the package's). */
export const VERSION = '0.1.0';
