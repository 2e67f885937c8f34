/** The signed-in user, as the bearer strategy puts it on `req.user`. */
export interface AppUser {
  userId: string;
  username: string;
}
