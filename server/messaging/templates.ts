/**
 * E-mail templates (docs/decisions/018-email-templates.md): a template turns a typed props object
 * into a subject, a plain-text part and an HTML part rendered from React components with
 * `renderToStaticMarkup`, so every value in the HTML is escaped by React. A message queued in bulk
 * stores only the template's name and its props (`outbound_messages.template` and `data`); the
 * outbound worker renders it once, with the registry the composition hands it, and delivers what
 * it rendered. The platform names no template: modules define theirs and the composition lists them.
 */
import type { ReactElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'

/** What a template makes of its props: the finished e-mail but its recipient. */
export type RenderedMail = {
  subject: string
  text: string
  html: string
  /** The one link the reader should follow (shown in the development outbox). */
  link?: string | undefined
  headers?: Record<string, string> | undefined
}

/**
 * An e-mail template. `Props` must survive JSON (strings, numbers, booleans, plain objects and
 * arrays; dates as ISO strings): a queued message keeps them in a `jsonb` column.
 */
export type MailTemplate<Props> = {
  readonly name: string
  render(props: Props): RenderedMail
}

/** A template whose props type is unknown here: what the registry holds. */
export type AnyMailTemplate = { readonly name: string; render(props: never): RenderedMail }

/** The templates a worker can render, by name. */
export type MailTemplates = ReadonlyMap<string, AnyMailTemplate>

/** A subject is one line, whatever a value typed by people holds. */
export function oneLine(subject: string): string {
  return subject.replace(/\s*[\r\n]+\s*/g, ' ')
}

/** `element` as an HTML document: `<!doctype html>` and React's static markup. */
export function htmlDocument(element: ReactElement): string {
  return `<!doctype html>\n${renderToStaticMarkup(element)}\n`
}

/**
 * Defines a template named `name` (unique among the registered ones, stored in queued rows, so
 * never renamed while rows may wait). `render` builds the subject, text and HTML (with
 * {@link htmlDocument}); the subject is kept to one line here.
 */
export function mailTemplate<Props>(
  name: string,
  render: (props: Props) => RenderedMail,
): MailTemplate<Props> {
  return {
    name,
    render(props) {
      const mail = render(props)
      return { ...mail, subject: oneLine(mail.subject) }
    },
  }
}

/** The registry of `templates`; two of one name are refused. */
export function mailTemplates(...templates: AnyMailTemplate[]): MailTemplates {
  const byName = new Map<string, AnyMailTemplate>()
  for (const template of templates) {
    if (byName.has(template.name)) {
      throw new Error(`Two e-mail templates are named "${template.name}"`)
    }
    byName.set(template.name, template)
  }
  return byName
}

/** Renders the queued `data` of a row with the template of its name; throws for an unknown one. */
export function renderQueued(templates: MailTemplates, name: string, data: unknown): RenderedMail {
  const template = templates.get(name)
  if (!template) throw new Error(`No e-mail template is named "${name}"`)
  return (template.render as (props: unknown) => RenderedMail)(data)
}
