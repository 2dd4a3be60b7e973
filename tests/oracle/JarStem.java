// Test-oracle helper for meteorx: stem words with the Snowball stemmers bundled
// in meteor-1.5.jar, exactly as Meteor's stem module does.
//
// Usage:  java -cp meteor-1.5.jar:<classes> JarStem <language>  < words  > stems
//
// <language> is anything Meteor's -l accepts ("english", "en", "portuguese",
// "pt", ...), resolved with edu.cmu.meteor.util.Constants.normLanguageName and
// instantiated with Constants.newStemmer (i.e. SnowballStemmerWrapper around
// org.tartarus.snowball.ext.<language>Stemmer). If Meteor does not know the
// name, org.tartarus.snowball.ext.<language>Stemmer is loaded directly (this
// also reaches e.g. "porter", which Meteor itself never uses).
//
// Input: UTF-8, one word per line ('\n' separated; BufferedReader.readLine also
// splits on '\r', so callers must not send words containing '\r' or '\n').
// Output: UTF-8, one stem per input line, each terminated by '\n'.
// Compiled at run time by tests/oracle/jar.py with `javac -cp meteor-1.5.jar`.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

import edu.cmu.meteor.util.Constants;
import org.tartarus.snowball.SnowballStemmer;

public class JarStem {

	private interface WordStemmer {
		String stem(String word);
	}

	private static WordStemmer load(String language) throws Exception {
		String name;
		try {
			name = Constants.normLanguageName(language);
		} catch (RuntimeException ex) {
			name = null;
		}
		if (name != null) {
			try {
				final edu.cmu.meteor.aligner.Stemmer s = Constants.newStemmer(name);
				return new WordStemmer() {
					public String stem(String word) {
						return s.stem(word);
					}
				};
			} catch (RuntimeException ex) {
				// Fall through to a direct Snowball lookup.
			}
		}
		final SnowballStemmer sb = (SnowballStemmer) Class
				.forName("org.tartarus.snowball.ext." + language.toLowerCase() + "Stemmer")
				.getDeclaredConstructor().newInstance();
		return new WordStemmer() {
			public String stem(String word) {
				sb.setCurrent(word);
				sb.stem();
				return sb.getCurrent();
			}
		};
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 1) {
			System.err.println("usage: JarStem <language>  (words on stdin, one per line)");
			System.exit(2);
		}
		WordStemmer stemmer;
		try {
			stemmer = load(args[0]);
		} catch (Exception ex) {
			System.err.println("JarStem: no stemmer for language '" + args[0] + "': " + ex);
			System.exit(3);
			return;
		}
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
				StandardCharsets.UTF_8));
		BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out,
				StandardCharsets.UTF_8), 1 << 16);
		String line;
		while ((line = in.readLine()) != null) {
			out.write(stemmer.stem(line));
			out.write('\n');
		}
		out.flush();
	}
}
