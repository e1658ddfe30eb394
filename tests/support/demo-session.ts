import type { Session } from '#domain/session.ts'

/** A signed-in demo Admin as `POST /auth/local` answers it (DESIGN.md section 6). */
export const demoSession: Session = {
  jwt: 'test.jwt.token',
  user: {
    id: 5,
    email: 'demo@example.com',
    username: 'demo@example.com',
    title: null,
    first_name: 'Demo',
    last_name: 'Admin',
    image_path: null,
    position: 'Provider',
    access_rights: 'Admin',
    practice_id: 1,
  },
  practice: { id: 1, practice_name: 'Glow Demo Med Spa', image_path: null },
}
