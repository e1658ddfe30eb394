import type { Session } from '#domain/session.ts'

/** A signed-in demo Admin as `POST /auth/local` answers it. */
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

/** The demo practice as `GET /practice` answers it (Settings' practice details). */
export const demoPractice = {
  id: 1,
  practice_name: 'Glow Demo Med Spa',
  office_name: 'Downtown',
  url: 'glow-demo-medspa.example',
  practice_phone: '5550100100',
  practice_email: 'hello@glow-demo-medspa.example',
  practice_address: '100 Market Street',
  practice_address_2: '',
  city: 'Springfield',
  practice_zip: '62701',
  state: 'IL',
  country: 'US',
  e_record: 'no_integration',
  nextech: null,
  footer_links: { about: '', privacy: '', support: '' },
  image_path: null,
}
