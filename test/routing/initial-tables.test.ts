import { afterEach, describe, expect, it } from 'vitest';
import {
  initialTableEnded,
  initialTableStarted,
  initialTablesSending,
  onInitialTables,
} from '../../src/routing/initial-tables.js';

afterEach(() => onInitialTables(null));

describe('sessions sending initial tables', () => {
  it('begins with the first session and ends with the last', () => {
    const told: string[] = [];
    onInitialTables({ begin: () => told.push('begin'), end: () => told.push('end') });
    initialTableStarted();
    initialTableStarted();
    initialTableEnded();
    expect(told).toEqual(['begin']);
    expect(initialTablesSending()).toBe(1);
    initialTableEnded();
    expect(told).toEqual(['begin', 'end']);
    initialTableStarted();
    initialTableEnded();
    expect(told).toEqual(['begin', 'end', 'begin', 'end']);
  });

  it('refuses an end that never started, and counts without hooks', () => {
    expect(() => initialTableEnded()).toThrow(/never started/);
    initialTableStarted();
    expect(initialTablesSending()).toBe(1);
    initialTableEnded();
    expect(initialTablesSending()).toBe(0);
  });
});
