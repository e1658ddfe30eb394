import { createFileRoute } from '@tanstack/react-router'
import { DocumentPage } from '#src/features/documents/document-page.tsx'
import AgreementText from '#src/features/sign-up/documents/agreement-text.tsx'

/** The Business Associates Agreement on its own page, public: the footer's Agreements open it. */
export const Route = createFileRoute('/agreement')({
  component: () => (
    <DocumentPage title="Business Associates Agreement">
      <AgreementText />
    </DocumentPage>
  ),
})
