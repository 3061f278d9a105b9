package guard

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 23, item 15: the corpus of secrets. Each command holds the secret
// s3cr3tPw0rd (or the token shown) in a common form; its summary, which
// state and logs keep, must not. The ordinary commands keep their words.
var secretCorpus = []struct{ command, secret string }{
	// By name: KEY=value, --password.
	{"PGPASSWORD=s3cr3tPw0rd psql -h db", "s3cr3tPw0rd"},
	{"export API_KEY=s3cr3tPw0rd", "s3cr3tPw0rd"},
	{"mysql -u root --password=s3cr3tPw0rd shop", "s3cr3tPw0rd"},
	{"wget --http-password=s3cr3tPw0rd https://example.com/f", "s3cr3tPw0rd"},
	// By argument position: the value after a flag that takes a password.
	{"mysql -u root -ps3cr3tPw0rd shop", "s3cr3tPw0rd"},
	{"mysqldump -h db -u root -ps3cr3tPw0rd shop > dump.sql", "s3cr3tPw0rd"},
	{"mariadb -uroot -ps3cr3tPw0rd", "s3cr3tPw0rd"},
	{"sshpass -p s3cr3tPw0rd ssh deploy@host", "s3cr3tPw0rd"},
	{"sshpass -ps3cr3tPw0rd scp f host:", "s3cr3tPw0rd"},
	{"curl -u alice:s3cr3tPw0rd https://api.example.com", "s3cr3tPw0rd"},
	{"curl --user 'alice:s3cr3tPw0rd' https://api.example.com", "s3cr3tPw0rd"},
	{"curl -sSu alice:s3cr3tPw0rd https://api.example.com", "s3cr3tPw0rd"},
	{"redis-cli -h cache -a s3cr3tPw0rd ping", "s3cr3tPw0rd"},
	{"docker login -u bob -p s3cr3tPw0rd registry.example.com", "s3cr3tPw0rd"},
	{"openssl rsa -in k.pem -passin pass:s3cr3tPw0rd", "s3cr3tPw0rd"},
	{"smbclient //srv/share -U alice%s3cr3tPw0rd", "s3cr3tPw0rd"},
	{"htpasswd -b .htpasswd alice s3cr3tPw0rd", "s3cr3tPw0rd"},
	{"mongosh mongodb://db -u admin -p s3cr3tPw0rd", "s3cr3tPw0rd"},
	// By shape: short bearer and basic tokens, URLs with a password.
	{`curl -H "Authorization: Bearer abc123xyz" https://api.example.com`, "abc123xyz"},
	{`curl -H 'Authorization: Basic YWxpY2U6cHc=' https://api.example.com`, "YWxpY2U6cHc="},
	{"curl --oauth2-bearer tok9876 https://api.example.com", "tok9876"},
	{"git clone https://x-access-token:ghs_short@github.com/o/r", "ghs_short"},
	{"psql postgresql://alice:s3cr3tPw0rd@db/shop", "s3cr3tPw0rd"},
	{"curl -H 'X-Api-Key: sk-live-0123456789abcdef0123456789abcdef' https://x", "sk-live-0123456789abcdef0123456789abcdef"},
}

func TestSummariesHoldNoSecret(t *testing.T) {
	leaked := 0
	for _, c := range secretCorpus {
		in, _ := json.Marshal(map[string]string{"command": c.command})
		got := Summarize("Bash", in)
		if strings.Contains(got, c.secret) {
			leaked++
			t.Errorf("%s\n  summary %q keeps %q", c.command, got, c.secret)
		}
		if got == "" {
			t.Errorf("%s: no summary", c.command)
		}
	}
	t.Logf("%d of %d secrets kept in clear", leaked, len(secretCorpus))
}

// Ordinary commands keep their words: flags that look like the password
// flags of other programs are not redacted.
func TestSummariesKeepOrdinaryCommands(t *testing.T) {
	for _, cmd := range []string{
		"mysql -u root -p shop",
		"grep -p pattern file",
		"tar -cpf out.tar dir",
		"curl -s https://example.com/a:b",
		"go test -p 2 ./...",
		"git log -p -1",
		"docker run -p 8080:80 nginx",
		"ssh -p 2222 host",
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if got := Summarize("Bash", in); got != cmd {
			t.Errorf("Summarize(%q) = %q, want it unchanged", cmd, got)
		}
	}
}
