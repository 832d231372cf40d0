/**
 * Repository languages as GitLab shows them (`GET /projects/:id/languages`). GitLab asks Gitaly's CommitLanguages for the
 * default branch (`Gitlab::GitalyClient::CommitService#languages`): every blob of the tree is classified by go-enry
 * (GitHub Linguist's data), files Linguist calls documentation or vendored are skipped (`fileInstance.IsExcluded`), and
 * so are generated files and languages that are neither `programming` nor `markup`
 * (`internal/gitaly/linguist/file_instance.go`: Markdown is prose, JSON/YAML data: not counted). A language's share is
 * `float32(100 * bytes) / float32(total)`, rounded by Ruby to two decimals (`l.share.round(2)`), largest first; GitLab keeps
 * the first five (`Gitlab::LanguageDetection::MAX_LANGUAGES`) and lists them by share (`repository_languages` ordered
 * `share DESC`).
 *
 * Without go-enry, the classification here is by file name and extension only (the unambiguous Linguist mappings of the
 * common languages; an ambiguous extension takes Linguist's most common language, `.h` → C), with Linguist's
 * documentation and vendor path rules and the usual generated-file names; `.gitattributes` linguist overrides are not
 * read.
 */

type LanguageType = 'programming' | 'markup';

/** Linguist's name and type of the languages counted, by lower-case extension (without the dot). */
const BY_EXTENSION: Record<string, readonly [string, LanguageType]> = {};
/** By exact file name (Linguist `filenames`). */
const BY_FILENAME: Record<string, readonly [string, LanguageType]> = {};

function add(name: string, type: LanguageType, extensions: string[], filenames: string[] = []): void {
  for (const e of extensions) BY_EXTENSION[e] = [name, type];
  for (const f of filenames) BY_FILENAME[f] = [name, type];
}

// programming
add('TypeScript', 'programming', ['ts', 'cts', 'mts']);
add('TSX', 'programming', ['tsx']);
add('JavaScript', 'programming', ['js', 'cjs', 'mjs', 'jsx', '_js', 'es6', 'jsm'], ['Jakefile']);
add('Ruby', 'programming', ['rb', 'rake', 'gemspec', 'rbw', 'ru', 'thor', 'builder', 'jbuilder'], ['Gemfile', 'Rakefile', 'Guardfile', 'Capfile', 'Vagrantfile', 'Podfile', 'Fastfile', 'Brewfile']);
add('Go', 'programming', ['go']);
add('Python', 'programming', ['py', 'pyw', 'pyi', 'pyx', 'gyp', 'wsgi'], ['SConstruct', 'SConscript', 'BUCK', 'WORKSPACE']);
add('Java', 'programming', ['java', 'jav']);
add('C', 'programming', ['c', 'h', 'cats', 'idc']);
add('C++', 'programming', ['cpp', 'cc', 'cxx', 'c++', 'cp', 'hpp', 'hh', 'hxx', 'h++', 'inl', 'ipp', 'tcc', 'tpp', 'ino']);
add('C#', 'programming', ['cs', 'csx', 'cake']);
add('Objective-C', 'programming', ['m']);
add('Objective-C++', 'programming', ['mm']);
add('Shell', 'programming', ['sh', 'bash', 'zsh', 'ksh', 'bats', 'command', 'tmux'], ['.bashrc', '.bash_profile', '.zshrc', '.profile', 'PKGBUILD']);
add('PowerShell', 'programming', ['ps1', 'psm1', 'psd1']);
add('Batchfile', 'programming', ['bat', 'cmd']);
add('PHP', 'programming', ['php', 'phtml', 'php3', 'php4', 'php5', 'phps', 'phpt']);
add('Rust', 'programming', ['rs']);
add('Kotlin', 'programming', ['kt', 'kts', 'ktm']);
add('Swift', 'programming', ['swift']);
add('Scala', 'programming', ['scala', 'sbt']);
add('Groovy', 'programming', ['groovy', 'gvy', 'gy', 'gradle'], ['Jenkinsfile']);
add('Perl', 'programming', ['pl', 'pm', 'perl', 'psgi']);
add('Lua', 'programming', ['lua']);
add('R', 'programming', ['r', 'rsx']);
add('Dart', 'programming', ['dart']);
add('Elixir', 'programming', ['ex', 'exs']);
add('Erlang', 'programming', ['erl', 'hrl', 'escript']);
add('Haskell', 'programming', ['hs', 'hs-boot', 'hsc']);
add('Clojure', 'programming', ['clj', 'cljs', 'cljc', 'boot']);
add('OCaml', 'programming', ['ml', 'mli', 'mll', 'mly']);
add('F#', 'programming', ['fs', 'fsi', 'fsx']);
add('Visual Basic .NET', 'programming', ['vb']);
add('Julia', 'programming', ['jl']);
add('Elm', 'programming', ['elm']);
add('CoffeeScript', 'programming', ['coffee', 'cjsx', 'iced']);
add('Zig', 'programming', ['zig']);
add('Nim', 'programming', ['nim', 'nims', 'nimble']);
add('Crystal', 'programming', ['cr']);
add('HCL', 'programming', ['hcl', 'tf', 'tfvars', 'nomad']);
add('Dockerfile', 'programming', ['dockerfile', 'containerfile'], ['Dockerfile', 'Containerfile']);
add('Makefile', 'programming', ['mk', 'mak', 'make'], ['Makefile', 'makefile', 'GNUmakefile', 'BSDmakefile']);
add('CMake', 'programming', ['cmake'], ['CMakeLists.txt']);
add('Vim Script', 'programming', ['vim', 'vimrc'], ['.vimrc', '_vimrc']);
add('Emacs Lisp', 'programming', ['el'], ['.emacs']);
add('Assembly', 'programming', ['asm', 'nasm']);
add('Fortran', 'programming', ['f90', 'f95', 'f03', 'f08']);
add('Solidity', 'programming', ['sol']);
add('GLSL', 'programming', ['glsl', 'vert', 'frag']);
// markup
add('HTML', 'markup', ['html', 'htm', 'xhtml', 'html.hl']);
add('CSS', 'markup', ['css']);
add('SCSS', 'markup', ['scss']);
add('Sass', 'markup', ['sass']);
add('Less', 'markup', ['less']);
add('Stylus', 'markup', ['styl']);
add('Vue', 'markup', ['vue']);
add('Svelte', 'markup', ['svelte']);
add('Haml', 'markup', ['haml']);
add('Slim', 'markup', ['slim']);
add('Pug', 'markup', ['pug', 'jade']);
add('HTML+ERB', 'markup', ['erb', 'rhtml', 'html.erb']);
add('Handlebars', 'markup', ['hbs', 'handlebars']);
add('Twig', 'markup', ['twig']);
add('EJS', 'markup', ['ejs']);
add('TeX', 'markup', ['tex', 'sty', 'ltx']);

/** Linguist `documentation.yml` (go-enry `IsDocumentation`). */
const DOCUMENTATION = [
  /^[Dd]ocs?\//, /(^|\/)[Dd]ocumentation\//, /(^|\/)[Gg]roovydoc\//, /(^|\/)[Jj]avadoc\//, /^[Mm]an\//, /^[Ee]xamples\//,
  /^[Dd]emos?\//, /(^|\/)inst\/doc\//, /(^|\/)CITATION(\.cff|(S)?(\.(bib|md))?)$/, /(^|\/)CHANGE(S|LOG)?(\.|$)/,
  /(^|\/)CONTRIBUTING(\.|$)/, /(^|\/)COPYING(\.|$)/, /(^|\/)INSTALL(\.|$)/, /(^|\/)LICEN[CS]E(\.|$)/, /(^|\/)[Ll]icen[cs]e(\.|$)/,
  /(^|\/)README(\.|$)/, /(^|\/)[Rr]eadme(\.|$)/, /^[Ss]amples?\//,
];

/** The common rules of Linguist `vendor.yml` (go-enry `IsVendor`). */
const VENDOR = [
  /(^|\/)cache\//, /^[Dd]ependencies\//, /(^|\/)dist\//, /^deps\//, /(^|\/)configure$/, /(^|\/)config\.guess$/, /(^|\/)config\.sub$/,
  /(^|\/)dotnet-install\.(ps1|sh)$/, /(^|\/)cpplint\.py/, /(^|\/)node_modules\//, /(^|\/)\.next\//, /(^|\/)out\//,
  /(^|\/)\.yarn\/(releases|plugins|sdks|versions|unplugged)\//, /(^|\/)bower_components\//, /^rebar$/, /(^|\/)Godeps\/_workspace\//,
  /(^|\/)testdata\//, /(\.|-)min\.(js|css)$/, /([^\s]*)import\.(css|less|scss|styl)$/, /(^|\/)bootstrap([^/.]*)(?=\.).*\.(js|css|less|scss|styl)$/,
  /(3rd|[Tt]hird)[-_]?[Pp]arty\//, /(^|\/)vendors?\//, /(^|\/)[Ee]xtern(als?)?\//, /(^|\/)[Vv]+endor\//, /^debian\//,
  /(^|\/)jquery([^.]*)\.js$/, /(^|\/)jquery-\d\.\d+(\.\d+)?\.js$/, /(^|\/)gradlew(\.bat)?$/, /(^|\/)mvnw(\.cmd)?$/, /(^|\/)\.mvn\/wrapper\//,
  /(.*?)\.d\.ts$/, /(^|\/)\.git\//, /(^|\/)\.github\//, /(^|\/)\.vscode\//, /(^|\/)\.idea\//, /(^|\/)Pods\//, /(^|\/)Carthage\//,
  /\.xctemplate\//, /\.imageset\//, /(^|\/)venv\//, /(^|\/)\.venv\//,
];

/** Generated files go-enry recognises by name (`IsGenerated` without the content rules). */
const GENERATED = [
  /\.designer\.(cs|vb)$/i, /\.feature\.cs$/i, /\.pb\.go$/, /_pb2(_grpc)?\.py$/, /\.pb\.(cc|h)$/, /\.g\.dart$/, /\.freezed\.dart$/,
  /(^|\/)package-lock\.json$/, /(^|\/)yarn\.lock$/, /(^|\/)Cargo\.lock$/, /(^|\/)Gopkg\.lock$/, /(^|\/)composer\.lock$/,
  /\.(js|css)\.map$/, /(^|\/)__generated__\//,
];

/** Linguist's language of a path in the tree, when it is one GitLab counts; undefined otherwise (or excluded). */
export function countedLanguage(path: string): string | undefined {
  if (DOCUMENTATION.some((r) => r.test(path)) || VENDOR.some((r) => r.test(path)) || GENERATED.some((r) => r.test(path))) return undefined;
  const base = path.slice(path.lastIndexOf('/') + 1);
  const byName = BY_FILENAME[base];
  if (byName) return byName[0];
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const lower = base.toLowerCase();
  // Double extensions first (".html.erb"), then the last one.
  const second = lower.lastIndexOf('.', dot - 1);
  const found = (second > 0 ? BY_EXTENSION[lower.slice(second + 1)] : undefined) ?? BY_EXTENSION[lower.slice(dot + 1)];
  return found?.[0];
}

/** Ruby's `Float#round(2)` (round half away from zero, with Ruby's correction of `x * 100` representation errors). */
export function rubyRound2(x: number): number {
  const s = 100;
  const xs = x * s;
  let f = Math.round(Math.abs(xs)) * Math.sign(xs);
  if (x > 0 && (f + 0.5) / s <= x) f += 1;
  if (x < 0 && (f - 0.5) / s >= x) f -= 1;
  return f / s;
}

/** GitLab keeps this many languages per project (`Gitlab::LanguageDetection::MAX_LANGUAGES`). */
export const MAX_LANGUAGES = 5;

export interface LanguageShare {
  name: string;
  share: number;
}

/** Adds up the bytes of a tree's blobs per counted language, one entry at a time (a tree is never held whole). */
export class LanguageTally {
  private readonly bytes = new Map<string, number>();

  add(path: string, size: number): void {
    const lang = countedLanguage(path);
    if (lang && size >= 0) this.bytes.set(lang, (this.bytes.get(lang) ?? 0) + size);
  }

  /** Gitaly's shares (float32 arithmetic) rounded as GitLab does, largest first (ties by name), the first five. */
  shares(): LanguageShare[] {
    const total = [...this.bytes.values()].reduce((a, b) => a + b, 0);
    if (total === 0) return [];
    return [...this.bytes.entries()]
      .map(([name, count]) => ({ name, share: rubyRound2(Math.fround(Math.fround(100 * count) / Math.fround(total))) }))
      .sort((a, b) => b.share - a.share || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, MAX_LANGUAGES);
  }
}
