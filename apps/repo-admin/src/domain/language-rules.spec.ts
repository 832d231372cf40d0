import { countedLanguage, LanguageTally, rubyRound2 } from './language-rules';

describe('language rules (Gitaly CommitLanguages as GitLab shows it)', () => {
  it('names languages as Linguist does, by extension and file name', () => {
    expect(countedLanguage('src/app.ts')).toBe('TypeScript');
    expect(countedLanguage('src/view.tsx')).toBe('TSX');
    expect(countedLanguage('lib/a.rb')).toBe('Ruby');
    expect(countedLanguage('Rakefile')).toBe('Ruby');
    expect(countedLanguage('cmd/main.go')).toBe('Go');
    expect(countedLanguage('x/y/z.py')).toBe('Python');
    expect(countedLanguage('A.java')).toBe('Java');
    expect(countedLanguage('a.c')).toBe('C');
    expect(countedLanguage('a.h')).toBe('C');
    expect(countedLanguage('a.cpp')).toBe('C++');
    expect(countedLanguage('build.sh')).toBe('Shell');
    expect(countedLanguage('index.HTML')).toBe('HTML');
    expect(countedLanguage('site.css')).toBe('CSS');
    expect(countedLanguage('app/views/x.html.erb')).toBe('HTML+ERB');
    expect(countedLanguage('Dockerfile')).toBe('Dockerfile');
    expect(countedLanguage('.eslintrc.js')).toBe('JavaScript');
  });

  it('counts only programming and markup languages: no prose (Markdown), no data (JSON, YAML), nothing unknown', () => {
    for (const p of ['notes.md', 'package.json', 'ci.yml', 'data.csv', 'a.txt', 'image.png', 'LICENSE', 'noext', '.gitignore']) {
      expect(countedLanguage(p)).toBeUndefined();
    }
  });

  it('skips documentation, vendored and generated files as Linguist does', () => {
    for (const p of ['docs/build.js', 'README.rb', 'CHANGELOG.py', 'node_modules/x/index.js', 'vendor/lib.rb', 'third_party/a.c',
      'app.min.js', 'types/index.d.ts', 'dist/bundle.js', 'api.pb.go', 'x/testdata/a.go', 'Examples/a.rb']) {
      expect(countedLanguage(p)).toBeUndefined();
    }
    expect(countedLanguage('src/docs/a.js')).toBe('JavaScript'); // ^docs/ only at the root
  });

  it('rounds as Ruby’s Float#round(2)', () => {
    expect(rubyRound2(66.6875)).toBe(66.69);
    expect(rubyRound2(33.333332061767578)).toBe(33.33);
    expect(rubyRound2(1.005)).toBe(1.01); // Ruby: 1.005.round(2) => 1.01 (the representation error corrected)
    expect(rubyRound2(100)).toBe(100);
  });

  it('shares bytes with two decimals, largest first, at most five languages', () => {
    const t = new LanguageTally();
    t.add('a.rb', 200);
    t.add('b.rb', 100);
    t.add('c.js', 100);
    t.add('d.ts', 50);
    t.add('e.go', 25);
    t.add('f.py', 24);
    t.add('g.c', 1);
    t.add('README.md', 10_000);
    expect(t.shares()).toEqual([
      { name: 'Ruby', share: 60 }, { name: 'JavaScript', share: 20 }, { name: 'TypeScript', share: 10 }, { name: 'Go', share: 5 },
      { name: 'Python', share: 4.8 },
    ]);
    const third = new LanguageTally();
    for (const p of ['a.rb', 'b.js', 'c.go']) third.add(p, 1);
    expect(third.shares().map((s) => s.share)).toEqual([33.33, 33.33, 33.33]);
    expect(new LanguageTally().shares()).toEqual([]);
  });
});
