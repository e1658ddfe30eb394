import { createFileRoute } from '@tanstack/react-router'
import { DocumentPage } from '#src/features/documents/document-page.tsx'
import TermsText from '#src/features/sign-up/documents/terms-text.tsx'

/** The Terms and Conditions on their own page, public: the footer's Terms and Privacy open it. */
export const Route = createFileRoute('/terms')({
  component: () => (
    <DocumentPage title="Terms and Conditions">
      <TermsText />
    </DocumentPage>
  ),
})
