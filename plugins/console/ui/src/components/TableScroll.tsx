import type { ComponentChildren } from 'preact';

/**
 * Around a table that may be wider than the screen (a phone's 360 px): it scrolls sideways
 * inside this box, not the page, and the box takes focus so that the keyboard can scroll it
 * too (axe-core asks it of a scrolling area with nothing focusable in it).
 */
export function TableScroll(props: { children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus for the keyboard to scroll it
    <div class="table-scroll" tabIndex={0}>
      {props.children}
    </div>
  );
}
