import { untrack } from 'svelte';
import { lessonById, type Lesson, type LessonId } from '../lessons';
import type { ReadSetup } from '../share-link';

/**
 * A form page's share link: each new link query is read once and handed to `apply` to fill the
 * form (it starts nothing); the lesson it named and what of it was left out stay for the page.
 * Create it while the page is set up.
 */
export class SetupLink<T extends { lesson?: LessonId }> {
  /** The lesson the link set up, and what of the link was left out. */
  read = $state.raw<{ lesson: Lesson | undefined; ignored: string[] }>({ lesson: undefined, ignored: [] });

  constructor(query: () => string | undefined, readSetup: (search: string) => ReadSetup<T>, apply: (setup: T) => void) {
    let applied: string | undefined;
    $effect.pre(() => {
      const search = query();
      if (search !== undefined && search !== applied)
        untrack(() => {
          const { setup, ignored } = readSetup(search);
          apply(setup);
          this.read = { lesson: lessonById(setup.lesson), ignored };
        });
      applied = search;
    });
  }

  /** The lesson, for a link written from the form as it now stands. */
  get lessonPart(): { lesson?: LessonId } {
    return this.read.lesson ? { lesson: this.read.lesson.id } : {};
  }
}
