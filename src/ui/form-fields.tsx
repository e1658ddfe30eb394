import { type PasswordInputProps, TextInput, type TextInputProps } from '@mantine/core'
import type { GetInputPropsReturnType } from '@mantine/form'
import type { ComponentType } from 'react'

/**
 * A text input whose error is announced as an alert, as every field of the app's forms
 * announces it (the text twin of the password field).
 */
export function TextField(props: TextInputProps) {
  return <TextInput errorProps={{ role: 'alert' }} {...props} />
}

/** The required 'Email' field of the account forms; each says how the browser may fill it in. */
export function EmailField(props: Omit<TextInputProps, 'label' | 'type'>) {
  return <TextField label="Email" type="email" withAsterisk {...props} />
}

/** What a list of fields needs of the Mantine form that holds their values. */
export interface FieldsForm<Path extends string> {
  getInputProps(path: Path): GetInputPropsReturnType
  /** The key that renews an uncontrolled input when the form resets it; controlled forms omit it. */
  key?(path: Path): string
}

/** One field of {@link FormFields}: its path in the form's values and the props it shows. */
export type FieldSpec<Path extends string, Props> = Partial<Props> & { path: Path }

/** A text field of a list, by its path. */
export type TextFieldSpec<Path extends string> = FieldSpec<Path, TextInputProps>

/** A password field of a list, by its path. */
export type PasswordFieldSpec<Path extends string> = FieldSpec<Path, PasswordInputProps>

/**
 * Inputs of one kind side by side, one per spec and each bound to its path of the form: the
 * forms' runs of alike fields (names, passwords, address lines) are written as a list of
 * labels and hints rather than one input after another. `common` holds the props they all share.
 */
export function FormFields<Path extends string, Props extends object = TextInputProps>({
  form,
  fields,
  common,
  component,
}: {
  form: FieldsForm<Path>
  fields: readonly FieldSpec<Path, NoInfer<Props>>[]
  common?: Partial<NoInfer<Props>>
  /** The input each field is; a {@link TextField} unless told. */
  component?: ComponentType<Props>
}) {
  const Input = (component ?? TextField) as ComponentType<Partial<Props>>
  return fields.map(({ path, ...own }) => (
    <Input
      key={form.key?.(path) ?? path}
      {...common}
      {...(own as Partial<Props>)}
      {...form.getInputProps(path)}
    />
  ))
}
