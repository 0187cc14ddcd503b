/** A game played under no name is listed under this one (the class export, pass and play, the Class page). */
export const UNNAMED = 'unnamed player';
