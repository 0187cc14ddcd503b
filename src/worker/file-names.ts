/** A name made safe inside a file name: runs of other characters become `-`, at most 60 kept; `unnamed` where nothing is left. */
export const safeFileName = (text: string, unnamed = 'run'): string => text.replace(/[^\w.-]+/g, '-').slice(0, 60) || unnamed;
