import { BodyByteBudget } from './body-byte-budget';

describe('BodyByteBudget', () => {
  it('lets small bodies through whatever the budget holds', () => {
    const budget = new BodyByteBudget(100, 10);
    const large = budget.open();
    expect(large.take(110)).toBe(true);
    expect(budget.reservedBytes).toBe(100);
    const small = budget.open();
    expect(small.take(10)).toBe(true);
    expect(small.take(1)).toBe(false);
  });

  it('reserves what a body takes beyond the free part, as it arrives, and gives it back once', () => {
    const budget = new BodyByteBudget(100, 10);
    const body = budget.open();
    expect(body.take(8)).toBe(true);
    expect(budget.reservedBytes).toBe(0);
    expect(body.take(50)).toBe(true);
    expect(budget.reservedBytes).toBe(48);
    body.release();
    body.release();
    expect(budget.reservedBytes).toBe(0);
    expect(body.take(1)).toBe(false);
  });

  it('refuses a chunk that would overdraw the budget and keeps what was reserved', () => {
    const budget = new BodyByteBudget(100, 0);
    const first = budget.open();
    const second = budget.open();
    expect(first.take(60)).toBe(true);
    expect(second.take(30)).toBe(true);
    expect(second.take(20)).toBe(false);
    expect(budget.reservedBytes).toBe(90);
    first.release();
    expect(second.take(20)).toBe(true);
  });
});
