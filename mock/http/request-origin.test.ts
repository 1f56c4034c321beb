import { describe, expect, it } from 'vitest';
import { routableHost } from './request-origin.ts';

const socket = { localAddress: '127.0.0.1', localPort: 8787 } as never;
const ipv6Socket = { localAddress: '::1', localPort: 8787 } as never;
const host = (value: string | undefined, on = socket) =>
  routableHost({ headers: value === undefined ? {} : { host: value }, socket: on });

describe('routableHost', () => {
  it('keeps a Host that is a plain authority', () => {
    for (const value of ['localhost', '127.0.0.1:8787', '[::1]:8787', 'energy-sim:8787', 'Example.COM'])
      expect(host(value)).toBe(value);
  });

  it('replaces a Host that could move part of the URL, or that the URL parser refuses, with the local address', () => {
    for (const value of ['a b', 'x/y?z', 'x#y', 'user@evil', 'x?y', '', 'a127.0.0.1', 'x:65536', '[zz]'])
      expect(host(value), value).toBe('127.0.0.1:8787');
  });

  it('brackets an IPv6 local address and stands in for a missing Host', () => {
    expect(host(undefined, ipv6Socket)).toBe('[::1]:8787');
  });
});
