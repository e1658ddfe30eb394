import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { preloadScript, routeFile } from './route-preloads.ts'

describe('route preloads', () => {
  it('turns file route names into address patterns and the route files on the way', () => {
    expect(routeFile('signin')).toEqual({ pattern: '^/signin/?$', files: ['signin'] })
    expect(routeFile('unsubscribe.$id')).toEqual({
      pattern: '^/unsubscribe/[^/]+/?$',
      files: ['unsubscribe.$id'],
    })
    expect(routeFile('_shell.dashboard')).toEqual({
      pattern: '^/dashboard/?$',
      files: ['_shell', '_shell.dashboard'],
    })
    expect(routeFile('_shell.personnel.index')).toEqual({
      pattern: '^/personnel/?$',
      files: ['_shell', '_shell.personnel.index'],
    })
    expect(routeFile('signup_.personnel.$id')).toEqual({
      pattern: '^/signup/personnel/[^/]+/?$',
      files: ['signup_.personnel.$id'],
    })
    expect(routeFile('404')).toEqual({ pattern: '^/404/?$', files: ['404'] })
    for (const none of ['__root', 'index', '$', '_shell']) expect(routeFile(none)).toBeNull()
  })

  it('adds preload links for the files of the route the address matches, and only those', () => {
    const script = preloadScript([
      { pattern: routeFile('signin')?.pattern ?? '', files: ['assets/a.js', 'assets/a.css'] },
      { pattern: routeFile('unsubscribe.$id')?.pattern ?? '', files: ['assets/u.js'] },
    ])
    const run = (pathname: string) => {
      const appended: Record<string, string>[] = []
      const document = {
        createElement: () => ({}) as Record<string, string>,
        head: { appendChild: (link: Record<string, string>) => appended.push(link) },
      }
      runInNewContext(script, { location: { pathname }, document })
      return appended
    }
    expect(run('/signin')).toEqual([
      { rel: 'modulepreload', crossOrigin: '', href: '/assets/a.js' },
      { rel: 'preload', as: 'style', crossOrigin: '', href: '/assets/a.css' },
    ])
    expect(run('/unsubscribe/abc')).toEqual([
      { rel: 'modulepreload', crossOrigin: '', href: '/assets/u.js' },
    ])
    expect(run('/unsubscribe/abc/more')).toEqual([])
    expect(run('/signinx')).toEqual([])
  })
})
